#include "runfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "movegen.h"
#include "notation.h"

/* ------------------------------------------------------------------------------------
 * The schema: one column table per dataset. The file compound type (packed, explicit
 * little-endian types) and the in-memory type (the C struct) are both built from it,
 * and an opened file is checked against it, so the layout is written down once.
 * ------------------------------------------------------------------------------------ */

typedef enum { COL_UINT, COL_INT, COL_STRING, COL_BYTES } ColKind;

typedef struct {
    const char *name;
    ColKind kind;
    size_t size; /* integer bytes, string bytes (NUL included) or array length */
    size_t offset;
} Column;

/* A /games row in memory. */
typedef struct {
    uint64_t game_id;
    uint64_t pair_id;
    uint8_t game_in_pair;
    uint16_t red_player;
    uint16_t black_player;
    char start_fen[RUNFILE_FEN_SIZE];
    int8_t outcome;
    uint8_t reason;
    uint16_t plies;
    uint64_t first_position;
    uint32_t worker_rank;
} GameRow;

#define COL(type, field, kind, size)              \
    {                                             \
#field, kind, size, offsetof(type, field) \
    }

static const Column GAME_COLS[] = {
    COL(GameRow, game_id, COL_UINT, 8),      COL(GameRow, pair_id, COL_UINT, 8),
    COL(GameRow, game_in_pair, COL_UINT, 1), COL(GameRow, red_player, COL_UINT, 2),
    COL(GameRow, black_player, COL_UINT, 2), COL(GameRow, start_fen, COL_STRING, RUNFILE_FEN_SIZE),
    COL(GameRow, outcome, COL_INT, 1),       COL(GameRow, reason, COL_UINT, 1),
    COL(GameRow, plies, COL_UINT, 2),        COL(GameRow, first_position, COL_UINT, 8),
    COL(GameRow, worker_rank, COL_UINT, 4),
};

static const Column POSITION_COLS[] = {
    COL(RunPosition, board, COL_BYTES, PACKED_POS_SIZE),
    COL(RunPosition, game_id, COL_UINT, 8),
    COL(RunPosition, ply, COL_UINT, 2),
    COL(RunPosition, move, COL_UINT, 2),
    COL(RunPosition, best, COL_UINT, 2),
    COL(RunPosition, score, COL_INT, 2),
    COL(RunPosition, depth, COL_UINT, 1),
    COL(RunPosition, flags, COL_UINT, 1),
    COL(RunPosition, result, COL_INT, 1),
    COL(RunPosition, nodes, COL_UINT, 4),
};

static const Column PLAYER_COLS[] = {
    COL(RunPlayer, player_id, COL_UINT, 2),
    COL(RunPlayer, name, COL_STRING, RUNFILE_NAME_SIZE),
    COL(RunPlayer, kind, COL_STRING, RUNFILE_KIND_SIZE),
    COL(RunPlayer, weights, COL_STRING, RUNFILE_WEIGHTS_SIZE),
    COL(RunPlayer, weights_hash, COL_UINT, 8),
};

#undef COL

typedef enum { T_GAMES, T_POSITIONS, T_PLAYERS, T_NB } TableId;

enum { GAME_READ_BLOCK = 4096 }; /* /games rows read at once while opening */

/* The most rows one flush can add: positions stay below RUNFILE_BATCH_POSITIONS until
 * the game that reaches it; games have no such bound (a game may have no plies), but the
 * coordinator flushes every second or few dozen games, so a million is generous. */
enum { TAIL_POSITIONS_MAX = RUNFILE_BATCH_POSITIONS + RECORD_MAX_PLIES, TAIL_GAMES_MAX = 1 << 20 };

typedef struct {
    const char *name;
    const Column *cols;
    int ncols;
    size_t mem_size;
    hsize_t chunk;
    const char *description;
} Table;

static const Table TABLES[T_NB] = {
    {"/games", GAME_COLS, (int)(sizeof GAME_COLS / sizeof GAME_COLS[0]), sizeof(GameRow),
     RUNFILE_GAME_CHUNK,
     "one row per game, game_id = row; outcome from Red's view: 1 Red won, 0 draw, "
     "-1 Black won; reason: index into the reason_names attribute; positions "
     "first_position .. first_position + plies - 1"},
    {"/positions", POSITION_COLS, (int)(sizeof POSITION_COLS / sizeof POSITION_COLS[0]),
     sizeof(RunPosition), RUNFILE_POSITION_CHUNK,
     "one row per position before each move. board: nibble per point (point s = rank*9 + "
     "file, a0 = 0, in byte s/2, low nibble for even s; 0 empty, 1-7 Red K A B N R C P, "
     "9-15 Black), byte 45 side to move (0 Red), byte 46 60-move counter. move, best: "
     "from | to << 7. score: centi-soldiers, mover's view. result: mover's view"},
    {"/players", PLAYER_COLS, (int)(sizeof PLAYER_COLS / sizeof PLAYER_COLS[0]), sizeof(RunPlayer),
     RUNFILE_PLAYER_CHUNK, "one row per player, player_id = row"},
};

/* ------------------------------------------------------------------------------------
 * The handle
 * ------------------------------------------------------------------------------------ */

struct RunFile {
    char *path;
    bool writable;
    bool broken; /* a write failed: the file is only as good as the last flush */
    hid_t file;
    hid_t dset[T_NB];
    hid_t memtype[T_NB];
    uint64_t stored[T_NB]; /* rows in the file */

    uint64_t run_id;
    char *config;
    char *engine_version;
    char *created;
    char note[256];
    uint64_t past_eoa; /* bytes past the EOA when opened: an interrupted write section */

    /* Every game, stored or buffered, by id; and (pair, game_in_pair) -> id + 1. */
    RunGame *games;
    uint64_t ngames, games_cap;
    uint64_t *slots;
    uint64_t nslots; /* a power of two, at least twice ngames */
    uint64_t npositions;
    uint64_t next_pair;

    RunPlayer *players;
    uint64_t nplayers, players_cap;

    /* Rows appended since the last flush (players: those past stored[T_PLAYERS]). */
    GameRow *gbuf;
    uint64_t ngbuf, gbuf_cap;
    RunPosition *pbuf;
    uint64_t npbuf, pbuf_cap;

    Position pos;                          /* replays games */
    RunPosition scratch[RECORD_MAX_PLIES]; /* one game's positions, when reading */
};

/* ------------------------------------------------------------------------------------
 * Errors: one line, the file first, then what failed, then HDF5's own reason
 * ------------------------------------------------------------------------------------ */

static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0 && e->desc)
        snprintf((char *)data, 200, "%s", e->desc);
    return 0;
}

static bool failv(RunError *err, const char *path, bool hdf5, const char *fmt, va_list ap)
{
    char what[256], detail[200] = "";
    vsnprintf(what, sizeof what, fmt, ap);
    if (hdf5) {
        H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, detail);
        H5Eclear2(H5E_DEFAULT);
    }
    if (err)
        snprintf(err->msg, sizeof err->msg, "%s: %s%s%s", path ? path : "(run file)", what,
                 detail[0] ? ": " : "", detail);
    return false;
}

/* A failure of our own checks. */
static bool fail(RunError *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(RunError *err, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(err, path, false, fmt, ap);
    va_end(ap);
    return false;
}

/* A failed HDF5 call: HDF5's innermost error message is appended. */
static bool h5fail(RunError *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool h5fail(RunError *err, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(err, path, true, fmt, ap);
    va_end(ap);
    return false;
}

/* HDF5 prints its error stack to stderr by default; the run file reports errors
 * itself, so printing is off inside each call and restored after it. */
typedef struct {
    H5E_auto2_t func;
    void *data;
} Quiet;

static Quiet quiet_begin(void)
{
    Quiet q = {NULL, NULL};
    H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

static void quiet_end(Quiet q)
{
    H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

static void close_id(hid_t *id, herr_t (*closer)(hid_t))
{
    if (*id >= 0)
        closer(*id);
    *id = H5I_INVALID_HID;
}

/* ------------------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------------------ */

static hid_t int_type(const Column *c, bool file)
{
    bool s = c->kind == COL_INT;
    switch (c->size) {
    case 1:
        return file ? (s ? H5T_STD_I8LE : H5T_STD_U8LE) : (s ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8);
    case 2:
        return file ? (s ? H5T_STD_I16LE : H5T_STD_U16LE)
                    : (s ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16);
    case 4:
        return file ? (s ? H5T_STD_I32LE : H5T_STD_U32LE)
                    : (s ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32);
    default:
        return file ? (s ? H5T_STD_I64LE : H5T_STD_U64LE)
                    : (s ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
    }
}

static hid_t string_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return t;
    if (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

/* The compound type of a table: packed little-endian for the file, the C struct's layout
 * in memory. */
static hid_t table_type(const Table *t, bool file)
{
    size_t total = 0;
    for (int i = 0; i < t->ncols; i++)
        total += t->cols[i].size;
    hid_t ct = H5Tcreate(H5T_COMPOUND, file ? total : t->mem_size);
    if (ct < 0)
        return ct;
    size_t off = 0;
    for (int i = 0; i < t->ncols; i++) {
        const Column *c = &t->cols[i];
        hid_t mt = H5I_INVALID_HID;
        bool own = true;
        if (c->kind == COL_STRING) {
            mt = string_type(c->size);
        } else if (c->kind == COL_BYTES) {
            hsize_t dim = c->size;
            mt = H5Tarray_create2(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8, 1, &dim);
        } else {
            mt = int_type(c, file);
            own = false;
        }
        herr_t st = mt < 0 ? -1 : H5Tinsert(ct, c->name, file ? off : c->offset, mt);
        if (own && mt >= 0)
            H5Tclose(mt);
        if (st < 0) {
            H5Tclose(ct);
            return H5I_INVALID_HID;
        }
        off += c->size;
    }
    return ct;
}

/* Whether a stored compound type has every column of the table with the right class,
 * size and sign. Other members are allowed (a later schema may add some). */
static bool check_table_type(const RunFile *rf, const Table *t, hid_t dt, RunError *err)
{
    if (H5Tget_class(dt) != H5T_COMPOUND)
        return fail(err, rf->path, "%s: not a compound dataset", t->name);
    for (int i = 0; i < t->ncols; i++) {
        const Column *c = &t->cols[i];
        int idx = H5Tget_member_index(dt, c->name);
        if (idx < 0) {
            H5Eclear2(H5E_DEFAULT);
            return fail(err, rf->path, "%s: member %s is missing", t->name, c->name);
        }
        hid_t mt = H5Tget_member_type(dt, (unsigned)idx);
        if (mt < 0)
            return h5fail(err, rf->path, "%s: cannot read the type of %s", t->name, c->name);
        H5T_class_t cls = H5Tget_class(mt);
        size_t size = H5Tget_size(mt);
        bool ok = false;
        const char *want = "";
        switch (c->kind) {
        case COL_UINT:
        case COL_INT:
            want = c->kind == COL_INT ? "signed integer" : "unsigned integer";
            ok = cls == H5T_INTEGER && size == c->size &&
                 H5Tget_sign(mt) == (c->kind == COL_INT ? H5T_SGN_2 : H5T_SGN_NONE);
            break;
        case COL_STRING:
            want = "fixed-length string";
            ok = cls == H5T_STRING && H5Tis_variable_str(mt) == 0 && size == c->size;
            break;
        case COL_BYTES: {
            want = "array of unsigned bytes";
            hsize_t dim = 0;
            if (cls == H5T_ARRAY && H5Tget_array_ndims(mt) == 1 &&
                H5Tget_array_dims2(mt, &dim) == 1 && dim == c->size) {
                hid_t base = H5Tget_super(mt);
                ok = base >= 0 && H5Tget_class(base) == H5T_INTEGER && H5Tget_size(base) == 1 &&
                     H5Tget_sign(base) == H5T_SGN_NONE;
                if (base >= 0)
                    H5Tclose(base);
            }
            break;
        }
        }
        H5Tclose(mt);
        if (!ok) {
            H5Eclear2(H5E_DEFAULT);
            return fail(err, rf->path, "%s: member %s is not a %zu-byte %s", t->name, c->name,
                        c->size, want);
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------
 * Attributes
 * ------------------------------------------------------------------------------------ */

static bool attr_write(RunFile *rf, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                       hid_t space, const void *value, RunError *err)
{
    hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        return h5fail(err, rf->path, "cannot create attribute %s", name);
    herr_t st = H5Awrite(a, mtype, value);
    H5Aclose(a);
    return st < 0 ? h5fail(err, rf->path, "cannot write attribute %s", name) : true;
}

static bool attr_write_scalar(RunFile *rf, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                              const void *value, RunError *err)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    if (sp < 0)
        return h5fail(err, rf->path, "cannot create a dataspace");
    bool ok = attr_write(rf, obj, name, ftype, mtype, sp, value, err);
    H5Sclose(sp);
    return ok;
}

static bool attr_write_string(RunFile *rf, hid_t obj, const char *name, const char *s,
                              RunError *err)
{
    hid_t t = string_type(strlen(s) + 1);
    if (t < 0)
        return h5fail(err, rf->path, "cannot make a string type for %s", name);
    bool ok = attr_write_scalar(rf, obj, name, t, t, s, err);
    H5Tclose(t);
    return ok;
}

/* reason_names: the name of every Reason code, indexed by code. */
static bool attr_write_reasons(RunFile *rf, hid_t obj, RunError *err)
{
    char names[REASON_NB][RUNFILE_REASON_NAME_SIZE];
    memset(names, 0, sizeof names);
    for (int r = 0; r < REASON_NB; r++)
        snprintf(names[r], sizeof names[r], "%s", rules_reason_name((Reason)r));
    hsize_t n = REASON_NB;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t t = string_type(RUNFILE_REASON_NAME_SIZE);
    bool ok = sp >= 0 && t >= 0 ? attr_write(rf, obj, "reason_names", t, t, sp, names, err)
                                : h5fail(err, rf->path, "cannot make the reason_names attribute");
    close_id(&t, H5Tclose);
    close_id(&sp, H5Sclose);
    return ok;
}

static bool attr_open(RunFile *rf, hid_t obj, const char *name, hid_t *a, RunError *err)
{
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0)
        return h5fail(err, rf->path, "cannot look for attribute %s", name);
    if (!ex)
        return fail(err, rf->path, "attribute %s is missing", name);
    *a = H5Aopen(obj, name, H5P_DEFAULT);
    return *a < 0 ? h5fail(err, rf->path, "cannot open attribute %s", name) : true;
}

static bool attr_read_u64(RunFile *rf, hid_t obj, const char *name, uint64_t *v, RunError *err)
{
    hid_t a = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    if (!attr_open(rf, obj, name, &a, err))
        return false;
    bool ok = false;
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    if (t < 0 || sp < 0)
        h5fail(err, rf->path, "cannot read attribute %s", name);
    else if (H5Tget_class(t) != H5T_INTEGER || H5Tget_sign(t) != H5T_SGN_NONE ||
             H5Sget_simple_extent_npoints(sp) != 1)
        fail(err, rf->path, "attribute %s is not an unsigned integer", name);
    else if (H5Aread(a, H5T_NATIVE_UINT64, v) < 0)
        h5fail(err, rf->path, "cannot read attribute %s", name);
    else
        ok = true;
    close_id(&sp, H5Sclose);
    close_id(&t, H5Tclose);
    close_id(&a, H5Aclose);
    return ok;
}

/* Reads a scalar fixed-length string attribute into a new string. */
static bool attr_read_string(RunFile *rf, hid_t obj, const char *name, char **out, RunError *err)
{
    hid_t a = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    if (!attr_open(rf, obj, name, &a, err))
        return false;
    bool ok = false;
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    if (t < 0 || sp < 0) {
        h5fail(err, rf->path, "cannot read attribute %s", name);
    } else if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) != 0 || size < 1 ||
               size > RUNFILE_CONFIG_MAX + 1 || H5Sget_simple_extent_npoints(sp) != 1) {
        fail(err, rf->path, "attribute %s is not a fixed-length string", name);
    } else if (!(*out = calloc(1, size + 1))) {
        fail(err, rf->path, "out of memory reading attribute %s", name);
    } else if ((mt = string_type(size)) < 0 || H5Aread(a, mt, *out) < 0) {
        h5fail(err, rf->path, "cannot read attribute %s", name);
    } else {
        ok = true;
    }
    close_id(&mt, H5Tclose);
    close_id(&sp, H5Sclose);
    close_id(&t, H5Tclose);
    close_id(&a, H5Aclose);
    return ok;
}

/* The stored reason names must be this build's names for the same codes. A file with
 * fewer names (from a build with fewer reasons) is fine; a different name is not. */
static bool check_reasons(RunFile *rf, RunError *err)
{
    hid_t a = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    if (!attr_open(rf, rf->dset[T_GAMES], "reason_names", &a, err))
        return false;
    bool ok = false;
    char names[REASON_NB][RUNFILE_REASON_NAME_SIZE];
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (t < 0 || sp < 0 || n < 0) {
        h5fail(err, rf->path, "cannot read /games reason_names");
    } else if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) != 0 ||
               H5Tget_size(t) != RUNFILE_REASON_NAME_SIZE || n > REASON_NB ||
               H5Sget_simple_extent_ndims(sp) != 1) {
        fail(err, rf->path, "/games reason_names: not %d-byte strings for at most %d reasons",
             RUNFILE_REASON_NAME_SIZE, REASON_NB);
    } else if ((mt = string_type(RUNFILE_REASON_NAME_SIZE)) < 0 || H5Aread(a, mt, names) < 0) {
        h5fail(err, rf->path, "cannot read /games reason_names");
    } else {
        ok = true;
        for (int r = 0; ok && r < n; r++) {
            names[r][RUNFILE_REASON_NAME_SIZE - 1] = '\0';
            if (strcmp(names[r], rules_reason_name((Reason)r)))
                ok = fail(err, rf->path, "reason %d is \"%s\" in the file but \"%s\" here", r,
                          names[r], rules_reason_name((Reason)r));
        }
    }
    close_id(&mt, H5Tclose);
    close_id(&sp, H5Sclose);
    close_id(&t, H5Tclose);
    close_id(&a, H5Aclose);
    return ok;
}

/* ------------------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------------------ */

/* Appends n rows to a table with one hyperslab write. */
static bool rows_append(RunFile *rf, TableId t, const void *rows, uint64_t n, RunError *err)
{
    if (!n)
        return true;
    hsize_t start = rf->stored[t], count = n, size = start + count;
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    bool ok = false;
    if (H5Dset_extent(rf->dset[t], &size) < 0)
        h5fail(err, rf->path, "cannot extend %s to %llu rows", TABLES[t].name,
               (unsigned long long)size);
    else if ((fs = H5Dget_space(rf->dset[t])) < 0 ||
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
             (ms = H5Screate_simple(1, &count, NULL)) < 0)
        h5fail(err, rf->path, "cannot select rows of %s", TABLES[t].name);
    else if (H5Dwrite(rf->dset[t], rf->memtype[t], ms, fs, H5P_DEFAULT, rows) < 0)
        h5fail(err, rf->path, "cannot write %llu rows to %s", (unsigned long long)count,
               TABLES[t].name);
    else
        ok = true;
    close_id(&ms, H5Sclose);
    close_id(&fs, H5Sclose);
    if (ok)
        rf->stored[t] = size;
    return ok;
}

/* Reads rows [start, start + n) of a table with one hyperslab read. */
static bool rows_read(RunFile *rf, TableId t, uint64_t start, uint64_t n, void *out, RunError *err)
{
    if (!n)
        return true;
    hsize_t first = start, count = n;
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    bool ok = false;
    if ((fs = H5Dget_space(rf->dset[t])) < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &first, NULL, &count, NULL) < 0 ||
        (ms = H5Screate_simple(1, &count, NULL)) < 0)
        h5fail(err, rf->path, "cannot select rows %llu..%llu of %s", (unsigned long long)start,
               (unsigned long long)(start + n - 1), TABLES[t].name);
    else if (H5Dread(rf->dset[t], rf->memtype[t], ms, fs, H5P_DEFAULT, out) < 0)
        h5fail(err, rf->path, "cannot read rows %llu..%llu of %s", (unsigned long long)start,
               (unsigned long long)(start + n - 1), TABLES[t].name);
    else
        ok = true;
    close_id(&ms, H5Sclose);
    close_id(&fs, H5Sclose);
    return ok;
}

/* Grows an array to hold at least `need` elements. */
static bool grow(void **p, size_t elem, uint64_t *cap, uint64_t need)
{
    if (need <= *cap)
        return true;
    uint64_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / elem)
        return false;
    void *q = realloc(*p, (size_t)(n * elem));
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* ------------------------------------------------------------------------------------
 * The game index: (pair_id, game_in_pair) -> game id, open addressing
 * ------------------------------------------------------------------------------------ */

static uint64_t slot_of(uint64_t pair_id, unsigned gip, uint64_t nslots)
{
    uint64_t h = (pair_id * 2 + gip) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    return h & (nslots - 1);
}

static bool index_find(const RunFile *rf, uint64_t pair_id, unsigned gip, uint64_t *id)
{
    if (!rf->nslots)
        return false;
    for (uint64_t s = slot_of(pair_id, gip, rf->nslots);; s = (s + 1) & (rf->nslots - 1)) {
        uint64_t v = rf->slots[s];
        if (!v)
            return false;
        const RunGame *g = &rf->games[v - 1];
        if (g->pair_id == pair_id && g->game_in_pair == gip) {
            if (id)
                *id = v - 1;
            return true;
        }
    }
}

static void index_place(uint64_t *slots, uint64_t nslots, const RunGame *g)
{
    uint64_t s = slot_of(g->pair_id, g->game_in_pair, nslots);
    while (slots[s])
        s = (s + 1) & (nslots - 1);
    slots[s] = g->game_id + 1;
}

/* Adds a game (its id is the next one) to the index. */
static bool index_add(RunFile *rf, const RunGame *g)
{
    if (!grow((void **)&rf->games, sizeof *rf->games, &rf->games_cap, rf->ngames + 1))
        return false;
    if (2 * (rf->ngames + 1) > rf->nslots) {
        uint64_t n = rf->nslots ? rf->nslots * 2 : 1024;
        uint64_t *s = calloc((size_t)n, sizeof *s);
        if (!s)
            return false;
        for (uint64_t i = 0; i < rf->ngames; i++)
            index_place(s, n, &rf->games[i]);
        free(rf->slots);
        rf->slots = s;
        rf->nslots = n;
    }
    rf->games[rf->ngames] = *g;
    index_place(rf->slots, rf->nslots, g);
    rf->ngames++;
    if (g->pair_id >= rf->next_pair)
        rf->next_pair = g->pair_id + 1;
    return true;
}

static RunGame game_from_row(const GameRow *r)
{
    RunGame g = {r->game_id,      r->pair_id, r->first_position, r->worker_rank, r->red_player,
                 r->black_player, r->plies,   r->game_in_pair,   r->outcome,     r->reason};
    return g;
}

/* ------------------------------------------------------------------------------------
 * Opening and closing
 * ------------------------------------------------------------------------------------ */

static RunFile *handle_new(const char *path, RunError *err)
{
    position_init();
    RunFile *rf = calloc(1, sizeof *rf);
    if (!rf || !(rf->path = strdup(path))) {
        free(rf);
        fail(err, path, "out of memory");
        return NULL;
    }
    rf->file = H5I_INVALID_HID;
    for (int t = 0; t < T_NB; t++)
        rf->dset[t] = rf->memtype[t] = H5I_INVALID_HID;
    return rf;
}

/* Closes the HDF5 objects in reverse order of opening. */
static bool handle_close_hdf5(RunFile *rf, RunError *err)
{
    bool ok = true;
    for (int t = T_NB - 1; t >= 0; t--) {
        if (rf->dset[t] >= 0 && H5Dclose(rf->dset[t]) < 0)
            ok = h5fail(err, rf->path, "cannot close %s", TABLES[t].name);
        rf->dset[t] = H5I_INVALID_HID;
        close_id(&rf->memtype[t], H5Tclose);
    }
    if (rf->file >= 0 && H5Fclose(rf->file) < 0 && ok)
        ok = h5fail(err, rf->path, "cannot close the file");
    rf->file = H5I_INVALID_HID;
    return ok;
}

static void handle_free(RunFile *rf)
{
    if (!rf)
        return;
    handle_close_hdf5(rf, NULL);
    free(rf->pbuf);
    free(rf->gbuf);
    free(rf->players);
    free(rf->slots);
    free(rf->games);
    free(rf->created);
    free(rf->engine_version);
    free(rf->config);
    free(rf->path);
    free(rf);
}

/*
 * Crash safety. HDF5 1.10 has no atomic commit: a kill inside H5Fflush can leave the
 * superblock's end of allocation (EOA) past the file's end ("truncated file") or, when
 * the space of a rewritten chunk is handed out again, old metadata pointing at new bytes
 * (a checksum error that takes a whole chunk of stored games with it). Killed at random
 * moments of back-to-back flushes, 28% of the files were lost. The measures:
 *   - the file space strategy NONE: freed space is never reused by a free-space manager;
 *   - before writing, the EOA is moved a step past the last allocation, so that a chunk
 *     freed at the end of the file cannot shrink the EOA and be reallocated in place;
 *   - the file is extended far enough that no EOA written during the batch can lie past
 *     its end, and after H5Fflush it is cut back to its EOA and fsync'ed;
 *   - HDF5 writes the superblock last, so a kill can still leave chunk-index nodes
 *     pointing past the stored EOA ("addr overflow") at data written before them: the
 *     bytes left past the EOA show it, and open_impl moves the EOA over them when
 *     opening for append.
 * With these, 4000 kills lost no file and no flushed game (one file had to be opened for
 * append before it could be read). The price: a rewritten chunk's old copy stays in the
 * file as dead space; flush in batches (see runfile_flush), or compact with h5repack.
 *
 * A full disk. The extension is allocated (posix_fallocate), not left sparse, and
 * before HDF5's state is touched: a full file system, a quota or a file size limit
 * (RLIMIT_FSIZE) then fails the batch before anything is written, the file stays as the
 * last flush left it and the rows stay buffered for the next try. On a file system that
 * cannot allocate ahead (glibc then writes zeros; a copy-on-write one may still fail
 * later), a write can fail inside the batch: the file is then broken (see `broken`).
 */
typedef struct {
    int fd;
    bool untouched; /* the failure came before anything was written */
} WriteSection;

static bool file_descriptor(RunFile *rf, int *fd, RunError *err)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(rf->file, H5P_DEFAULT, &handle) < 0 || !handle)
        return h5fail(err, rf->path, "cannot get the file descriptor");
    *fd = *(int *)handle;
    return true;
}

/* The EOA step that fences a batch from the chunks freed by the one before. */
enum { FENCE_BYTES = 8 };

/* Opens a write section able to take `bytes` of new rows. */
static bool write_begin(RunFile *rf, WriteSection *ws, uint64_t bytes, RunError *err)
{
    haddr_t eoa = 0;
    struct stat st;
    ws->untouched = true;
    if (!file_descriptor(rf, &ws->fd, err))
        return false;
    if (H5Fget_eoa(rf->file, &eoa) < 0)
        return h5fail(err, rf->path, "cannot read the end of allocation");
    /* Compressed rows take at most their raw size; rewritten last chunks and metadata
     * come on top. */
    uint64_t margin = 2 * bytes + (1u << 20);
    for (int t = 0; t < T_NB; t++)
        margin += 2 * TABLES[t].chunk * TABLES[t].mem_size;
    uint64_t want = eoa + FENCE_BYTES + margin;
    if (fstat(ws->fd, &st) < 0)
        return fail(err, rf->path, "fstat: %s", strerror(errno));
    if ((uint64_t)st.st_size < want) {
        int e = posix_fallocate(ws->fd, st.st_size, (off_t)(want - (uint64_t)st.st_size));
        if (e) {
            /* a partial allocation is given back: the file stays as the last flush left it */
            if (ftruncate(ws->fd, st.st_size) < 0) {
                /* bytes past the EOA are trimmed by the next flush or dropped at opening */
            }
            return fail(err, rf->path, "cannot reserve %.1f MB for the next %.1f MB of games: %s",
                        (double)(want - (uint64_t)st.st_size) / 1e6, (double)bytes / 1e6,
                        strerror(e));
        }
    }
    ws->untouched = false;
    if (H5Fincrement_filesize(rf->file, FENCE_BYTES) < 0)
        return h5fail(err, rf->path, "cannot move the end of allocation");
    return true;
}

/* Flushes HDF5, cuts the file back to its EOA and syncs it: the batch is durable. */
static bool write_end(RunFile *rf, WriteSection *ws, RunError *err)
{
    haddr_t eoa = 0;
    ws->untouched = false;
    if (H5Fflush(rf->file, H5F_SCOPE_GLOBAL) < 0)
        return h5fail(err, rf->path, "cannot flush");
    if (H5Fget_eoa(rf->file, &eoa) < 0)
        return h5fail(err, rf->path, "cannot read the end of allocation");
    if (ftruncate(ws->fd, (off_t)eoa) < 0)
        return fail(err, rf->path, "cannot trim the file: %s", strerror(errno));
    if (fsync(ws->fd) < 0)
        return fail(err, rf->path, "fsync: %s", strerror(errno));
    return true;
}

static hid_t dataset_access(void)
{
    /* 4 MiB of chunk cache per dataset: several chunks of every table stay decompressed. */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl >= 0 && H5Pset_chunk_cache(dapl, 521, 4u << 20, 1.0) < 0) {
        H5Pclose(dapl);
        return H5I_INVALID_HID;
    }
    return dapl;
}

static bool create_table(RunFile *rf, TableId t, RunError *err)
{
    const Table *tb = &TABLES[t];
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = tb->chunk;
    hid_t ft = H5I_INVALID_HID, sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID,
          dapl = H5I_INVALID_HID;
    bool ok = false;
    if ((ft = table_type(tb, true)) < 0 || (rf->memtype[t] = table_type(tb, false)) < 0)
        h5fail(err, rf->path, "cannot build the types of %s", tb->name);
    else if ((sp = H5Screate_simple(1, &zero, &unlimited)) < 0 ||
             (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || (dapl = dataset_access()) < 0 ||
             H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
             H5Pset_deflate(dcpl, RUNFILE_DEFLATE_LEVEL) < 0 || H5Pset_fletcher32(dcpl) < 0)
        h5fail(err, rf->path, "cannot set up %s", tb->name);
    else if ((rf->dset[t] = H5Dcreate2(rf->file, tb->name, ft, sp, H5P_DEFAULT, dcpl, dapl)) < 0)
        h5fail(err, rf->path, "cannot create %s", tb->name);
    else
        ok = attr_write_string(rf, rf->dset[t], "description", tb->description, err);
    close_id(&dapl, H5Pclose);
    close_id(&dcpl, H5Pclose);
    close_id(&sp, H5Sclose);
    close_id(&ft, H5Tclose);
    return ok;
}

static bool random_id(uint64_t *id)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, id, sizeof *id);
    close(fd);
    return n == (ssize_t)sizeof *id;
}

static bool create_impl(RunFile *rf, const char *config, const char *version, RunError *err)
{
    if (strlen(config) > RUNFILE_CONFIG_MAX)
        return fail(err, rf->path, "run_config of %zu bytes exceeds %d", strlen(config),
                    RUNFILE_CONFIG_MAX);
    if (!random_id(&rf->run_id))
        return fail(err, rf->path, "cannot read /dev/urandom for a run id");
    time_t now = time(NULL);
    struct tm tm;
    char created[32];
    if (!gmtime_r(&now, &tm) || !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return fail(err, rf->path, "cannot format the time");
    if (!(rf->config = strdup(config)) || !(rf->engine_version = strdup(version)) ||
        !(rf->created = strdup(created)))
        return fail(err, rf->path, "out of memory");

    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl < 0 || H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_NONE, 0, 1) < 0) {
        close_id(&fcpl, H5Pclose);
        return h5fail(err, rf->path, "cannot set up the file creation properties");
    }
    rf->file = H5Fcreate(rf->path, H5F_ACC_EXCL, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (rf->file < 0)
        return h5fail(err, rf->path, "cannot create (an existing file is never overwritten)");
    uint32_t schema = RUNFILE_SCHEMA_VERSION;
    if (!attr_write_scalar(rf, rf->file, "schema_version", H5T_STD_U32LE, H5T_NATIVE_UINT32,
                           &schema, err) ||
        !attr_write_scalar(rf, rf->file, "run_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, &rf->run_id,
                           err) ||
        !attr_write_string(rf, rf->file, "engine_version", version, err) ||
        !attr_write_string(rf, rf->file, "run_config", config, err) ||
        !attr_write_string(rf, rf->file, "created", created, err))
        return false;
    for (int t = 0; t < T_NB; t++)
        if (!create_table(rf, (TableId)t, err))
            return false;
    if (!attr_write_reasons(rf, rf->dset[T_GAMES], err))
        return false;
    WriteSection ws;
    return file_descriptor(rf, &ws.fd, err) && write_end(rf, &ws, err);
}

RunFile *runfile_create(const char *path, const char *config_json, const char *engine_version,
                        RunError *err)
{
    Quiet q = quiet_begin();
    RunFile *rf = handle_new(path, err);
    if (rf) {
        rf->writable = true;
        bool existed = access(path, F_OK) == 0;
        if (!create_impl(rf, config_json ? config_json : "", engine_version ? engine_version : "",
                         err)) {
            bool made = rf->file >= 0 && !existed;
            handle_free(rf);
            rf = NULL;
            if (made)
                unlink(path);
        }
    }
    quiet_end(q);
    return rf;
}

/* Opens the datasets of an open file and checks their member types and shapes. */
static bool open_tables(RunFile *rf, uint64_t extent[T_NB], RunError *err)
{
    for (int t = 0; t < T_NB; t++) {
        const Table *tb = &TABLES[t];
        htri_t ex = H5Lexists(rf->file, tb->name + 1, H5P_DEFAULT);
        if (ex < 0)
            return h5fail(err, rf->path, "cannot look for %s", tb->name);
        if (!ex)
            return fail(err, rf->path, "dataset %s is missing", tb->name);
        hid_t dapl = dataset_access();
        if (dapl < 0)
            return h5fail(err, rf->path, "cannot set up a chunk cache");
        rf->dset[t] = H5Dopen2(rf->file, tb->name, dapl);
        H5Pclose(dapl);
        if (rf->dset[t] < 0)
            return h5fail(err, rf->path, "cannot open dataset %s", tb->name);
        hid_t dt = H5Dget_type(rf->dset[t]);
        if (dt < 0)
            return h5fail(err, rf->path, "cannot read the type of %s", tb->name);
        bool ok = check_table_type(rf, tb, dt, err);
        H5Tclose(dt);
        if (!ok)
            return false;
        hid_t sp = H5Dget_space(rf->dset[t]);
        hsize_t dims = 0, maxdims = 0;
        int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
        if (nd == 1)
            H5Sget_simple_extent_dims(sp, &dims, &maxdims);
        if (sp >= 0)
            H5Sclose(sp);
        if (nd != 1 || maxdims != H5S_UNLIMITED)
            return fail(err, rf->path, "%s is not a one-dimensional extendible dataset", tb->name);
        extent[t] = dims;
        if ((rf->memtype[t] = table_type(tb, false)) < 0)
            return h5fail(err, rf->path, "cannot build the type of %s", tb->name);
    }
    return true;
}

static bool terminated(const char *s, size_t size)
{
    return memchr(s, '\0', size) != NULL;
}

static bool load_players(RunFile *rf, uint64_t n, RunError *err)
{
    if (n > RUNFILE_PLAYERS_MAX)
        return fail(err, rf->path, "/players has %llu rows, more than %d", (unsigned long long)n,
                    RUNFILE_PLAYERS_MAX);
    if (!grow((void **)&rf->players, sizeof *rf->players, &rf->players_cap, n))
        return fail(err, rf->path, "out of memory");
    if (!rows_read(rf, T_PLAYERS, 0, n, rf->players, err))
        return false;
    for (uint64_t i = 0; i < n; i++) {
        const RunPlayer *p = &rf->players[i];
        if (p->player_id != i || !terminated(p->name, sizeof p->name) ||
            !terminated(p->kind, sizeof p->kind) || !terminated(p->weights, sizeof p->weights))
            return fail(err, rf->path, "/players row %llu is damaged", (unsigned long long)i);
    }
    rf->nplayers = rf->stored[T_PLAYERS] = n;
    return true;
}

/* Checks a stored game row (its id is already known to be the row number). */
static bool check_game_row(const RunFile *rf, const GameRow *r, RunError *err)
{
    const char *why = NULL;
    if (r->game_in_pair > 1)
        why = "game_in_pair is not 0 or 1";
    else if (r->outcome < -1 || r->outcome > 1)
        why = "outcome is not 1, 0 or -1";
    else if (r->reason >= REASON_NB)
        why = "unknown reason code";
    else if (r->red_player >= rf->nplayers || r->black_player >= rf->nplayers)
        why = "unknown player";
    else if (r->plies > RECORD_MAX_PLIES)
        why = "too many plies";
    else if (r->pair_id == UINT64_MAX)
        why = "pair_id has no next one"; /* runfile_next_pair_id would wrap to 0 */
    else if (r->pair_id > r->game_id && r->pair_id - r->game_id > RUNFILE_PAIR_ID_SLACK)
        why = "pair_id is more than 2^24 past its game_id (pair ids run densely)";
    else if (!terminated(r->start_fen, sizeof r->start_fen) || !r->start_fen[0])
        why = "bad start_fen";
    else if (index_find(rf, r->pair_id, r->game_in_pair, NULL))
        why = "its (pair_id, game_in_pair) is stored twice";
    return why ? fail(err, rf->path, "/games row %llu: %s", (unsigned long long)r->game_id, why)
               : true;
}

/*
 * Reads /games into the index. Rows of an interrupted flush (a kill inside
 * runfile_flush) form the tail: the first row whose positions are missing or whose
 * game_id is not its row number (a row the extent covers but that was never written),
 * and everything after it. *games and *positions get the rows before that tail.
 */
static bool load_games(RunFile *rf, uint64_t n, uint64_t pos_rows, uint64_t *games,
                       uint64_t *positions, RunError *err)
{
    GameRow *buf = malloc(GAME_READ_BLOCK * sizeof *buf);
    if (!buf)
        return fail(err, rf->path, "out of memory");
    uint64_t expect = 0, tail = n;
    bool ok = true;
    for (uint64_t start = 0; ok && start < tail; start += GAME_READ_BLOCK) {
        uint64_t cnt = n - start < GAME_READ_BLOCK ? n - start : GAME_READ_BLOCK;
        if (!(ok = rows_read(rf, T_GAMES, start, cnt, buf, err)))
            break;
        for (uint64_t j = 0; ok && j < cnt; j++) {
            const GameRow *r = &buf[j];
            uint64_t i = start + j;
            if (r->game_id != i ||
                (r->first_position == expect && r->first_position + r->plies > pos_rows)) {
                tail = i;
                break;
            }
            if (r->first_position != expect)
                ok = fail(err, rf->path, "/games row %llu: first_position %llu, expected %llu",
                          (unsigned long long)i, (unsigned long long)r->first_position,
                          (unsigned long long)expect);
            else if ((ok = check_game_row(rf, r, err))) {
                RunGame g = game_from_row(r);
                if (!(ok = index_add(rf, &g)))
                    fail(err, rf->path, "out of memory");
                expect += r->plies;
            }
        }
    }
    free(buf);
    *games = tail;
    *positions = expect;
    return ok;
}

/* The last stored position must be the last ply of the last game that has plies. Reading
 * it also checks the checksum of the chunk that the next append extends. */
static bool check_last_position(RunFile *rf, RunError *err)
{
    uint64_t n = rf->stored[T_POSITIONS];
    if (!n)
        return true;
    const RunGame *g = &rf->games[rf->ngames - 1];
    while (!g->plies)
        g--;
    RunPosition *p = &rf->scratch[0];
    if (!rows_read(rf, T_POSITIONS, n - 1, 1, p, err))
        return false;
    if (p->game_id != g->game_id || p->ply != g->plies - 1)
        return fail(err, rf->path, "/positions row %llu is not the last ply of game %llu",
                    (unsigned long long)(n - 1), (unsigned long long)g->game_id);
    return true;
}

/* Opens read-only and loads everything a reader or a resuming writer needs. */
static bool load(RunFile *rf, uint64_t extent[T_NB], RunError *err)
{
    struct stat st;
    if (stat(rf->path, &st) < 0)
        return fail(err, rf->path, "%s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return fail(err, rf->path, "not a regular file");
    rf->file = H5Fopen(rf->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (rf->file < 0)
        return h5fail(err, rf->path, "cannot open as HDF5");
    haddr_t eoa = 0;
    if (H5Fget_eoa(rf->file, &eoa) < 0)
        return h5fail(err, rf->path, "cannot read the end of allocation");
    rf->past_eoa = (uint64_t)st.st_size > eoa ? (uint64_t)st.st_size - eoa : 0;
    uint64_t schema = 0;
    if (!attr_read_u64(rf, rf->file, "schema_version", &schema, err))
        return false;
    if (schema != RUNFILE_SCHEMA_VERSION)
        return fail(err, rf->path, "schema version %llu, this build reads version %d",
                    (unsigned long long)schema, RUNFILE_SCHEMA_VERSION);
    if (!attr_read_u64(rf, rf->file, "run_id", &rf->run_id, err) ||
        !attr_read_string(rf, rf->file, "engine_version", &rf->engine_version, err) ||
        !attr_read_string(rf, rf->file, "run_config", &rf->config, err) ||
        !attr_read_string(rf, rf->file, "created", &rf->created, err) ||
        !open_tables(rf, extent, err) || !check_reasons(rf, err) ||
        !load_players(rf, extent[T_PLAYERS], err))
        return false;
    uint64_t games = 0, positions = 0;
    if (!load_games(rf, extent[T_GAMES], extent[T_POSITIONS], &games, &positions, err))
        return false;
    /* An interrupted flush leaves at most one batch of rows past the stored ones. A longer
     * tail is damage, not a kill, and dropping it on append would keep HDF5 busy for a
     * time that grows with the rows (2^47 of them: for ever). */
    if (extent[T_POSITIONS] - positions > TAIL_POSITIONS_MAX ||
        extent[T_GAMES] - games > TAIL_GAMES_MAX)
        return fail(err, rf->path,
                    "%llu game rows and %llu position rows past the stored ones: more than "
                    "an interrupted write leaves",
                    (unsigned long long)(extent[T_GAMES] - games),
                    (unsigned long long)(extent[T_POSITIONS] - positions));
    rf->stored[T_GAMES] = games;
    rf->stored[T_POSITIONS] = rf->npositions = positions;
    if (games < extent[T_GAMES] || positions < extent[T_POSITIONS])
        snprintf(rf->note, sizeof rf->note,
                 "%s: %llu game rows and %llu position rows of an interrupted write %s", rf->path,
                 (unsigned long long)(extent[T_GAMES] - games),
                 (unsigned long long)(extent[T_POSITIONS] - positions),
                 "are ignored (opening for append drops them)");
    return check_last_position(rf, err);
}

/* Reopens a file that load() accepted for writing; drops the rows of an interrupted
 * write and completes a shorter reason_names list. */
static bool reopen_for_append(RunFile *rf, const uint64_t seen[T_NB], RunError *err)
{
    if (!handle_close_hdf5(rf, err))
        return false;
    rf->file = H5Fopen(rf->path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (rf->file < 0)
        return h5fail(err, rf->path, "cannot open for writing");
    uint64_t extent[T_NB];
    if (!open_tables(rf, extent, err))
        return false;
    if (memcmp(extent, seen, sizeof extent))
        return fail(err, rf->path, "changed while being opened");
    hid_t a = H5Aopen(rf->dset[T_GAMES], "reason_names", H5P_DEFAULT);
    hid_t sp = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hssize_t nnames = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    close_id(&sp, H5Sclose);
    close_id(&a, H5Aclose);
    if (nnames < 0)
        return h5fail(err, rf->path, "cannot read /games reason_names");
    bool drop = false;
    for (int t = 0; t < T_NB; t++)
        drop |= rf->stored[t] != extent[t];
    if (!drop && nnames == REASON_NB && !rf->past_eoa)
        return true;

    WriteSection ws;
    if (!write_begin(rf, &ws, 0, err))
        return false;
    for (int t = 0; drop && t < T_NB; t++) {
        hsize_t keep = rf->stored[t];
        if (keep != extent[t] && H5Dset_extent(rf->dset[t], &keep) < 0)
            return h5fail(err, rf->path, "cannot drop the interrupted rows of %s", TABLES[t].name);
    }
    if (drop)
        snprintf(rf->note, sizeof rf->note,
                 "%s: dropped %llu game rows and %llu position rows of an interrupted write",
                 rf->path, (unsigned long long)(extent[T_GAMES] - rf->stored[T_GAMES]),
                 (unsigned long long)(extent[T_POSITIONS] - rf->stored[T_POSITIONS]));
    if (nnames < REASON_NB && (H5Adelete(rf->dset[T_GAMES], "reason_names") < 0 ||
                               !attr_write_reasons(rf, rf->dset[T_GAMES], err)))
        return h5fail(err, rf->path, "cannot replace /games reason_names");
    return write_end(rf, &ws, err);
}

/* Moves the EOA of a file to its end, as `h5clear --increment=0` does. */
static bool recover_eoa(const char *path, RunError *err)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return h5fail(err, path, "cannot open for writing");
    bool ok = H5Fincrement_filesize(f, 0) >= 0 || h5fail(err, path, "cannot move the EOA");
    if (H5Fclose(f) < 0 && ok)
        ok = h5fail(err, path, "cannot close");
    return ok;
}

static void append_to_error(RunError *err, const char *text)
{
    if (err) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, "%s", text);
    }
}

/*
 * Opens and validates read-only, then reopens for writing if asked. A file that fails
 * validation while holding bytes past its EOA ends in an interrupted write section whose
 * metadata got to the disk before the superblock's new EOA did (HDF5 writes the
 * superblock last): opening for append moves the EOA to the end of the file, over data
 * that the fence wrote before any metadata, and validates again.
 */
static RunFile *open_impl(const char *path, bool writable, RunError *err)
{
    Quiet q = quiet_begin();
    RunFile *rf = handle_new(path, err);
    uint64_t extent[T_NB], moved = 0;
    if (rf && !load(rf, extent, err)) {
        moved = rf->past_eoa;
        handle_free(rf);
        rf = NULL;
        if (moved && !writable)
            append_to_error(err, " (the file ends in an interrupted write: opening it for "
                                 "append recovers it)");
        if (moved && writable && recover_eoa(path, err) && (rf = handle_new(path, err)) &&
            !load(rf, extent, err)) {
            append_to_error(err, " (after moving the EOA over an interrupted write)");
            handle_free(rf);
            rf = NULL;
        }
    }
    if (rf && writable && !reopen_for_append(rf, extent, err)) {
        handle_free(rf);
        rf = NULL;
    }
    if (rf) {
        rf->writable = writable;
        if (!moved && writable)
            moved = rf->past_eoa; /* reopen_for_append moved it */
        if (moved && !rf->note[0])
            snprintf(rf->note, sizeof rf->note,
                     "%s: moved the EOA over %llu bytes of an interrupted write", path,
                     (unsigned long long)moved);
    }
    quiet_end(q);
    return rf;
}

RunFile *runfile_open_append(const char *path, RunError *err)
{
    return open_impl(path, true, err);
}

RunFile *runfile_open_read(const char *path, RunError *err)
{
    return open_impl(path, false, err);
}

/* ------------------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------------------ */

static bool writable(RunFile *rf, RunError *err)
{
    if (!rf->writable)
        return fail(err, rf->path, "opened read-only");
    if (rf->broken)
        return fail(err, rf->path, "an earlier write failed; reopen the file to go on");
    return true;
}

static bool copy_text(char *dst, size_t size, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

bool runfile_add_player(RunFile *rf, const char *name, const char *kind, const char *weights,
                        uint64_t weights_hash, uint16_t *id, RunError *err)
{
    if (!writable(rf, err))
        return false;
    if (rf->nplayers >= RUNFILE_PLAYERS_MAX)
        return fail(err, rf->path, "more than %d players", RUNFILE_PLAYERS_MAX);
    if (!grow((void **)&rf->players, sizeof *rf->players, &rf->players_cap, rf->nplayers + 1))
        return fail(err, rf->path, "out of memory");
    RunPlayer *p = &rf->players[rf->nplayers];
    memset(p, 0, sizeof *p);
    if (!copy_text(p->name, sizeof p->name, name) || !copy_text(p->kind, sizeof p->kind, kind) ||
        !copy_text(p->weights, sizeof p->weights, weights))
        return fail(err, rf->path, "player %s: name, kind or weights path too long",
                    name ? name : "");
    p->player_id = (uint16_t)rf->nplayers;
    p->weights_hash = weights_hash;
    if (id)
        *id = p->player_id;
    rf->nplayers++;
    return true;
}

static int8_t outcome_code(Outcome o)
{
    return o == OUTCOME_RED_WIN ? 1 : o == OUTCOME_BLACK_WIN ? -1 : 0;
}

/* Replays the record into position rows at rf->pbuf[rf->npbuf...], without counting them
 * as buffered yet. On failure, why says what is wrong. */
static bool pack_positions(RunFile *rf, const GameRecord *rec, uint64_t game_id, char *why,
                           size_t size)
{
    PosError perr;
    if (!pos_set_fen(&rf->pos, rec->start_fen, &perr)) {
        snprintf(why, size, "bad start FEN: %s", perr.msg);
        return false;
    }
    int8_t red_result = outcome_code(rec->outcome);
    for (int i = 0; i < rec->nplies; i++) {
        const RecordPly *p = &rec->plies[i];
        if (!move_is_legal(&rf->pos, p->move)) {
            char text[5];
            move_to_text(p->move, text);
            snprintf(why, size, "ply %d: %s is not legal", i, text);
            return false;
        }
        RunPosition *row = &rf->pbuf[rf->npbuf + (uint64_t)i];
        record_pack(&rf->pos, &row->board);
        row->game_id = game_id;
        row->ply = (uint16_t)i;
        row->move = p->move;
        row->best = p->best;
        row->score = p->score;
        row->depth = p->depth;
        row->flags = p->flags;
        row->result = (int8_t)(rf->pos.side == RED ? red_result : -red_result);
        row->nodes = p->nodes;
        pos_do_move(&rf->pos, p->move);
        if (pos_history_full(&rf->pos))
            pos_trim_history(&rf->pos);
    }
    return true;
}

static bool append_impl(RunFile *rf, const GameRecord *rec, uint64_t pair_id, unsigned gip,
                        uint16_t red, uint16_t black, uint32_t rank, uint64_t *game_id,
                        RunError *err)
{
    uint64_t id = rf->ngames, stored_as;
    if (!writable(rf, err))
        return false;
    if (gip > 1)
        return fail(err, rf->path, "pair %llu: game_in_pair %u is not 0 or 1",
                    (unsigned long long)pair_id, gip);
    if (pair_id == UINT64_MAX)
        return fail(err, rf->path, "pair %llu has no next one", (unsigned long long)pair_id);
    if (pair_id > id && pair_id - id > RUNFILE_PAIR_ID_SLACK)
        return fail(err, rf->path,
                    "pair %llu is more than 2^24 past game %llu (pair ids run densely)",
                    (unsigned long long)pair_id, (unsigned long long)id);
    if (index_find(rf, pair_id, gip, &stored_as))
        return fail(err, rf->path, "pair %llu game %u is already stored as game %llu",
                    (unsigned long long)pair_id, gip, (unsigned long long)stored_as);
    if (red >= rf->nplayers || black >= rf->nplayers)
        return fail(err, rf->path, "pair %llu game %u: unknown player %u",
                    (unsigned long long)pair_id, gip, red >= rf->nplayers ? red : black);
    if (rec->outcome <= OUTCOME_NONE || rec->outcome > OUTCOME_BLACK_WIN ||
        (unsigned)rec->reason >= REASON_NB)
        return fail(err, rf->path, "pair %llu game %u: no outcome or unknown reason",
                    (unsigned long long)pair_id, gip);
    if (rec->nplies < 0 || rec->nplies > RECORD_MAX_PLIES ||
        !terminated(rec->start_fen, sizeof rec->start_fen))
        return fail(err, rf->path, "pair %llu game %u: malformed record",
                    (unsigned long long)pair_id, gip);
    if (!grow((void **)&rf->pbuf, sizeof *rf->pbuf, &rf->pbuf_cap,
              rf->npbuf + (uint64_t)rec->nplies) ||
        !grow((void **)&rf->gbuf, sizeof *rf->gbuf, &rf->gbuf_cap, rf->ngbuf + 1))
        return fail(err, rf->path, "out of memory");
    char why[200];
    if (!pack_positions(rf, rec, id, why, sizeof why))
        return fail(err, rf->path, "pair %llu game %u: %s", (unsigned long long)pair_id, gip, why);
    GameRow *row = &rf->gbuf[rf->ngbuf];
    memset(row, 0, sizeof *row);
    row->game_id = id;
    row->pair_id = pair_id;
    row->game_in_pair = (uint8_t)gip;
    row->red_player = red;
    row->black_player = black;
    memcpy(row->start_fen, rec->start_fen, sizeof row->start_fen);
    row->outcome = outcome_code(rec->outcome);
    row->reason = (uint8_t)rec->reason;
    row->plies = (uint16_t)rec->nplies;
    row->first_position = rf->npositions;
    row->worker_rank = rank;
    RunGame g = game_from_row(row);
    if (!index_add(rf, &g))
        return fail(err, rf->path, "out of memory");
    rf->ngbuf++;
    rf->npbuf += (uint64_t)rec->nplies;
    rf->npositions += (uint64_t)rec->nplies;
    if (game_id)
        *game_id = id;
    return true;
}

static bool flush_impl(RunFile *rf, RunError *err)
{
    if (!rf->writable)
        return true;
    if (!writable(rf, err))
        return false;
    if (!rf->ngbuf && rf->stored[T_PLAYERS] == rf->nplayers)
        return true;
    /* Positions before the games that point at them, and one flush for all. */
    uint64_t p0 = rf->stored[T_PLAYERS];
    uint64_t bytes = (rf->nplayers - p0) * sizeof(RunPlayer) + rf->npbuf * sizeof(RunPosition) +
                     rf->ngbuf * sizeof(GameRow);
    WriteSection ws;
    bool ok = write_begin(rf, &ws, bytes, err) &&
              rows_append(rf, T_PLAYERS, rf->players + p0, rf->nplayers - p0, err) &&
              rows_append(rf, T_POSITIONS, rf->pbuf, rf->npbuf, err) &&
              rows_append(rf, T_GAMES, rf->gbuf, rf->ngbuf, err) && write_end(rf, &ws, err);
    if (!ok) {
        /* with nothing written the rows stay buffered for the next try */
        rf->broken = !ws.untouched;
        return false;
    }
    rf->ngbuf = rf->npbuf = 0;
    return true;
}

bool runfile_append_game(RunFile *rf, const GameRecord *rec, uint64_t pair_id,
                         unsigned game_in_pair, uint16_t red, uint16_t black, uint32_t rank,
                         uint64_t *game_id, RunError *err)
{
    Quiet q = quiet_begin();
    bool ok = append_impl(rf, rec, pair_id, game_in_pair, red, black, rank, game_id, err);
    RunError ignored;
    if (ok && rf->npbuf >= RUNFILE_BATCH_POSITIONS)
        flush_impl(rf, &ignored); /* a failure shows at the caller's next runfile_flush */
    quiet_end(q);
    return ok;
}

bool runfile_flush(RunFile *rf, RunError *err)
{
    Quiet q = quiet_begin();
    bool ok = flush_impl(rf, err);
    quiet_end(q);
    return ok;
}

bool runfile_close(RunFile **rfp, RunError *err)
{
    RunFile *rf = rfp ? *rfp : NULL;
    if (!rf)
        return true;
    Quiet q = quiet_begin();
    bool ok = rf->broken ? fail(err, rf->path,
                                "closed after a failed write: the games "
                                "since the last flush are lost")
                         : flush_impl(rf, err);
    if (!handle_close_hdf5(rf, ok ? err : NULL))
        ok = false;
    handle_free(rf);
    *rfp = NULL;
    quiet_end(q);
    return ok;
}

/* ------------------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------------------ */

uint64_t runfile_game_count(const RunFile *rf)
{
    return rf->ngames;
}
uint64_t runfile_flushed_game_count(const RunFile *rf)
{
    return rf->stored[T_GAMES];
}

bool runfile_broken(const RunFile *rf)
{
    return rf->broken;
}

uint64_t runfile_position_count(const RunFile *rf)
{
    return rf->npositions;
}
uint16_t runfile_player_count(const RunFile *rf)
{
    return (uint16_t)rf->nplayers;
}
uint64_t runfile_next_pair_id(const RunFile *rf)
{
    return rf->next_pair;
}
uint64_t runfile_run_id(const RunFile *rf)
{
    return rf->run_id;
}
const char *runfile_path(const RunFile *rf)
{
    return rf->path;
}
const char *runfile_config(const RunFile *rf)
{
    return rf->config;
}
const char *runfile_engine_version(const RunFile *rf)
{
    return rf->engine_version;
}
const char *runfile_created(const RunFile *rf)
{
    return rf->created;
}
const char *runfile_recovery_note(const RunFile *rf)
{
    return rf->note;
}

const RunGame *runfile_game(const RunFile *rf, uint64_t game_id)
{
    return game_id < rf->ngames ? &rf->games[game_id] : NULL;
}

bool runfile_find_game(const RunFile *rf, uint64_t pair_id, unsigned game_in_pair,
                       uint64_t *game_id)
{
    return game_in_pair <= 1 && index_find(rf, pair_id, game_in_pair, game_id);
}

const RunPlayer *runfile_player(const RunFile *rf, uint16_t player_id)
{
    return player_id < rf->nplayers ? &rf->players[player_id] : NULL;
}

bool runfile_read_positions(RunFile *rf, uint64_t start, uint64_t count, RunPosition *out,
                            RunError *err)
{
    uint64_t n = rf->stored[T_POSITIONS];
    if (start > n || count > n - start)
        return fail(err, rf->path, "positions %llu..+%llu: only %llu are stored",
                    (unsigned long long)start, (unsigned long long)count, (unsigned long long)n);
    Quiet q = quiet_begin();
    bool ok = rows_read(rf, T_POSITIONS, start, count, out, err);
    quiet_end(q);
    return ok;
}

static Outcome outcome_from_code(int8_t c)
{
    return c > 0 ? OUTCOME_RED_WIN : c < 0 ? OUTCOME_BLACK_WIN : OUTCOME_DRAW;
}

static bool read_game_impl(RunFile *rf, uint64_t id, GameRecord *out, RunError *err)
{
    if (id >= rf->stored[T_GAMES])
        return fail(err, rf->path, "game %llu: only %llu games are stored", (unsigned long long)id,
                    (unsigned long long)rf->stored[T_GAMES]);
    const RunGame *g = &rf->games[id];
    GameRow row;
    if (!rows_read(rf, T_GAMES, id, 1, &row, err) ||
        !rows_read(rf, T_POSITIONS, g->first_position, g->plies, rf->scratch, err))
        return false;
    if (row.game_id != id || row.first_position != g->first_position || row.plies != g->plies)
        return fail(err, rf->path, "/games row %llu changed on disk", (unsigned long long)id);
    memset(out, 0, offsetof(GameRecord, plies));
    out->game_id = id;
    memcpy(out->start_fen, row.start_fen, sizeof out->start_fen);
    out->start_fen[sizeof out->start_fen - 1] = '\0';
    out->nplies = g->plies;
    for (int i = 0; i < g->plies; i++) {
        const RunPosition *p = &rf->scratch[i];
        if (p->game_id != id || p->ply != i)
            return fail(err, rf->path, "/positions row %llu is not ply %d of game %llu",
                        (unsigned long long)(g->first_position + (uint64_t)i), i,
                        (unsigned long long)id);
        RecordPly *r = &out->plies[i];
        r->move = p->move;
        r->best = p->best;
        r->score = p->score;
        r->depth = p->depth;
        r->flags = p->flags;
        r->nodes = p->nodes;
    }
    out->outcome = outcome_from_code(g->outcome);
    out->reason = (Reason)g->reason;
    return true;
}

bool runfile_read_game(RunFile *rf, uint64_t game_id, GameRecord *out, RunError *err)
{
    Quiet q = quiet_begin();
    bool ok = read_game_impl(rf, game_id, out, err);
    quiet_end(q);
    return ok;
}

/* Every stored position against its game: id, ply, side to move, result, board. */
static bool verify_impl(RunFile *rf, RunError *err)
{
    uint64_t n = rf->stored[T_POSITIONS], g = 0;
    RunPosition *buf = malloc(RUNFILE_BATCH_POSITIONS * sizeof *buf);
    if (!buf)
        return fail(err, rf->path, "out of memory");
    bool ok = true;
    for (uint64_t start = 0; ok && start < n; start += RUNFILE_BATCH_POSITIONS) {
        uint64_t cnt = n - start < RUNFILE_BATCH_POSITIONS ? n - start : RUNFILE_BATCH_POSITIONS;
        if (!(ok = rows_read(rf, T_POSITIONS, start, cnt, buf, err)))
            break;
        for (uint64_t j = 0; ok && j < cnt; j++) {
            uint64_t row = start + j;
            while (g < rf->stored[T_GAMES] &&
                   row >= rf->games[g].first_position + rf->games[g].plies)
                g++;
            if (g >= rf->stored[T_GAMES]) {
                ok = fail(err, rf->path, "/positions row %llu belongs to no game",
                          (unsigned long long)row);
                break;
            }
            const RunGame *game = &rf->games[g];
            const RunPosition *p = &buf[j];
            uint64_t ply = row - game->first_position;
            int8_t want = (int8_t)(p->board.b[45] == RED ? game->outcome : -game->outcome);
            PosError perr;
            if (p->game_id != g || p->ply != ply)
                ok = fail(err, rf->path, "/positions row %llu is not ply %llu of game %llu",
                          (unsigned long long)row, (unsigned long long)ply, (unsigned long long)g);
            else if (p->result != want)
                ok = fail(err, rf->path, "/positions row %llu: result %d, the game says %d",
                          (unsigned long long)row, p->result, want);
            else if (!record_unpack(&p->board, &rf->pos, &perr))
                ok = fail(err, rf->path, "/positions row %llu: bad board: %s",
                          (unsigned long long)row, perr.msg);
        }
    }
    free(buf);
    return ok;
}

bool runfile_verify(RunFile *rf, RunError *err)
{
    Quiet q = quiet_begin();
    bool ok = verify_impl(rf, err);
    quiet_end(q);
    return ok;
}
