#include "runcols.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "rules.h"
#include "runheader.h"
#include "textesc.h"

/* ------------------------------------------------------------------------------------
 * The schema: one column table per dataset. The file compound type (packed, explicit
 * little-endian types) and the in-memory type (the C struct) are both built from it,
 * and an opened file is checked against it, so the layout is written down once.
 * ------------------------------------------------------------------------------------ */

/* Scalars (integers, a double), fixed-size strings, and arrays of unsigned bytes,
 * signed bytes or doubles. */
typedef enum { COL_UINT, COL_INT, COL_FLOAT, COL_STRING, COL_BYTES, COL_INTS, COL_FLOATS } ColKind;

struct RunColumn {
    const char *name;
    ColKind kind;
    size_t size; /* bytes, in the file and in memory (a string's NUL included) */
    size_t offset;
};

#define COL(type, field, kind, size)              \
    {                                             \
#field, kind, size, offsetof(type, field) \
    }

static const RunColumn GAME_COLS[] = {
    COL(RunGameRow, game_id, COL_UINT, 8),
    COL(RunGameRow, pair_id, COL_UINT, 8),
    COL(RunGameRow, game_in_pair, COL_UINT, 1),
    COL(RunGameRow, red_player, COL_UINT, 2),
    COL(RunGameRow, black_player, COL_UINT, 2),
    COL(RunGameRow, start_fen, COL_STRING, RUNFILE_FEN_SIZE),
    COL(RunGameRow, outcome, COL_INT, 1),
    COL(RunGameRow, reason, COL_UINT, 1),
    COL(RunGameRow, plies, COL_UINT, 2),
    COL(RunGameRow, first_position, COL_UINT, 8),
    COL(RunGameRow, worker_rank, COL_UINT, 4),
};

static const RunColumn POSITION_COLS[] = {
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

static const RunColumn PLAYER_COLS[] = {
    COL(RunPlayer, player_id, COL_UINT, 2),
    COL(RunPlayer, name, COL_STRING, RUNFILE_NAME_SIZE),
    COL(RunPlayer, kind, COL_STRING, RUNFILE_KIND_SIZE),
    COL(RunPlayer, weights, COL_STRING, RUNFILE_WEIGHTS_SIZE),
    COL(RunPlayer, weights_hash, COL_UINT, 8),
};

static const RunColumn SPSA_PARAM_COLS[] = {
    COL(RunSpsaParam, param_id, COL_UINT, 2),
    COL(RunSpsaParam, name, COL_STRING, RUNFILE_NAME_SIZE),
    COL(RunSpsaParam, type, COL_STRING, RUNFILE_SPSA_TYPE_SIZE),
    COL(RunSpsaParam, start, COL_FLOAT, 8),
    COL(RunSpsaParam, min, COL_FLOAT, 8),
    COL(RunSpsaParam, max, COL_FLOAT, 8),
    COL(RunSpsaParam, c_end, COL_FLOAT, 8),
    COL(RunSpsaParam, r_end, COL_FLOAT, 8),
};

static const RunColumn SPSA_COLS[] = {
    COL(RunSpsaRow, pair_id, COL_UINT, 8),
    COL(RunSpsaRow, result, COL_INT, 1),
    COL(RunSpsaRow, delta, COL_INTS, RUNFILE_SPSA_MAX),
    COL(RunSpsaRow, plus, COL_FLOATS, 8 * RUNFILE_SPSA_MAX),
    COL(RunSpsaRow, minus, COL_FLOATS, 8 * RUNFILE_SPSA_MAX),
    COL(RunSpsaRow, theta, COL_FLOATS, 8 * RUNFILE_SPSA_MAX),
};

#undef COL

const RunTable RUNCOLS_TABLES[RUNCOLS_NB] = {
    {"/games", GAME_COLS, (int)(sizeof GAME_COLS / sizeof GAME_COLS[0]), sizeof(RunGameRow),
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
    {"/spsa_params", SPSA_PARAM_COLS, (int)(sizeof SPSA_PARAM_COLS / sizeof SPSA_PARAM_COLS[0]),
     sizeof(RunSpsaParam), RUNFILE_SPSA_CHUNK,
     "SPSA: one row per tuned parameter, param_id = row = its index in the /spsa arrays; "
     "type int (values rounded) or float; start value, bounds, c_end and r_end as fishtest "
     "takes them"},
    {"/spsa", SPSA_COLS, (int)(sizeof SPSA_COLS / sizeof SPSA_COLS[0]), sizeof(RunSpsaRow),
     RUNFILE_SPSA_CHUNK,
     "SPSA: one row per iteration, pair_id = row: the perturbation delta (+1/-1 per "
     "parameter), the values played by player 0 (plus) and player 1 (minus), result = "
     "points of plus minus points of minus over the pair (-2..2), theta after the update; "
     "arrays hold /spsa_params' count of parameters, then zeros"},
};

/* ------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------ */

static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0 && e->desc)
        snprintf((char *)data, 200, "%s", e->desc);
    return 0;
}

bool runcols_hdf5_error(RunError *err, const char *path, const char *fmt, ...)
{
    char what[256], detail[200] = "";
    va_list ap;
    va_start(ap, fmt);
    error_setv(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, detail);
    H5Eclear2(H5E_DEFAULT);
    return ERROR_SET(err, "%s: %s%s%s", path, what, detail[0] ? ": " : "", detail);
}

RunQuiet runcols_quiet_begin(void)
{
    RunQuiet q = {NULL, NULL};
    /* No HDF5 shutdown at exit (this is the first HDF5 call of a process that opens a run
     * file): after a damaged file whose metadata could not be read, it loops over the
     * half-open file and prints "HDF5: infinite loop closing library" below the run
     * file's one-line refusal. Every run file is closed explicitly before exit. */
    H5dont_atexit();
    H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

void runcols_quiet_end(RunQuiet q)
{
    H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

void runcols_close_id(hid_t *id, herr_t (*closer)(hid_t))
{
    if (*id >= 0)
        closer(*id);
    *id = H5I_INVALID_HID;
}

/* ------------------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------------------ */

static hid_t int_type(const RunColumn *c, bool file)
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

/* The element type of an array column, for the file or in memory. */
static hid_t element_type(ColKind kind, bool file)
{
    if (kind == COL_FLOATS)
        return file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    if (kind == COL_INTS)
        return file ? H5T_STD_I8LE : H5T_NATIVE_INT8;
    return file ? H5T_STD_U8LE : H5T_NATIVE_UINT8;
}

static size_t element_size(ColKind kind)
{
    return kind == COL_FLOATS ? 8 : 1;
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
static hid_t table_type(const RunTable *t, bool file)
{
    size_t total = 0;
    for (int i = 0; i < t->ncols; i++)
        total += t->cols[i].size;
    hid_t ct = H5Tcreate(H5T_COMPOUND, file ? total : t->mem_size);
    if (ct < 0)
        return ct;
    size_t off = 0;
    for (int i = 0; i < t->ncols; i++) {
        const RunColumn *c = &t->cols[i];
        hid_t mt = H5I_INVALID_HID;
        bool own = true;
        if (c->kind == COL_STRING) {
            mt = string_type(c->size);
        } else if (c->kind == COL_BYTES || c->kind == COL_INTS || c->kind == COL_FLOATS) {
            hsize_t dim = c->size / element_size(c->kind);
            mt = H5Tarray_create2(element_type(c->kind, file), 1, &dim);
        } else if (c->kind == COL_FLOAT) {
            mt = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
            own = false;
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

/* Whether a stored member type is a one-dimensional array of dim elements of the class,
 * size and sign (H5T_SGN_ERROR: any) given. */
static bool array_ok(hid_t mt, hsize_t dim, H5T_class_t cls, size_t size, H5T_sign_t sign)
{
    hsize_t got = 0;
    if (H5Tget_class(mt) != H5T_ARRAY || H5Tget_array_ndims(mt) != 1 ||
        H5Tget_array_dims2(mt, &got) != 1 || got != dim)
        return false;
    hid_t base = H5Tget_super(mt);
    bool ok = base >= 0 && H5Tget_class(base) == cls && H5Tget_size(base) == size &&
              (sign == H5T_SGN_ERROR || H5Tget_sign(base) == sign);
    if (base >= 0)
        H5Tclose(base);
    return ok;
}

/* The most bytes a stored row may take: the largest table's row is 1.6 KB, so this
 * leaves room for later members and refuses a damaged size before HDF5 allocates it. */
enum { ROW_BYTES_MAX = 1 << 16 };

/* Whether the members of a stored compound type fill its size exactly, each inside it
 * and none over another (the file types are packed): a damaged offset or size would make
 * HDF5 copy bytes outside its buffers. The member of the first overlap, or of the one
 * outside, goes to *bad (-1 when the members leave gaps). */
static bool members_fit(hid_t dt, int n, size_t total, int *bad)
{
    size_t end[64], start[64], sum = 0;
    for (int i = 0; i < n; i++) {
        hid_t mt = H5Tget_member_type(dt, (unsigned)i);
        size_t size = mt >= 0 ? H5Tget_size(mt) : 0;
        if (mt >= 0)
            H5Tclose(mt);
        start[i] = H5Tget_member_offset(dt, (unsigned)i);
        end[i] = start[i] + size;
        *bad = i;
        if (!size || start[i] > total || size > total - start[i])
            return false;
        for (int j = 0; j < i; j++)
            if (start[i] < end[j] && start[j] < end[i])
                return false;
        sum += size;
    }
    *bad = -1;
    return sum == total;
}

/* Whether a stored compound type has every column of the table with the right class,
 * size and sign, and members that fit in its size. Other members are allowed (a later
 * schema may add some). */
static bool check_table_type(const RunTable *t, hid_t dt, const char *path, RunError *err)
{
    if (H5Tget_class(dt) != H5T_COMPOUND)
        return ERROR_SET(err, "%s: %s: not a compound dataset", path, t->name);
    for (int i = 0; i < t->ncols; i++) {
        const RunColumn *c = &t->cols[i];
        int idx = H5Tget_member_index(dt, c->name);
        if (idx < 0) {
            H5Eclear2(H5E_DEFAULT);
            return ERROR_SET(err, "%s: %s: member %s is missing", path, t->name, c->name);
        }
        hid_t mt = H5Tget_member_type(dt, (unsigned)idx);
        if (mt < 0)
            return runcols_hdf5_error(err, path, "%s: cannot read the type of %s", t->name,
                                      c->name);
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
        case COL_FLOAT:
            want = "floating-point number";
            ok = cls == H5T_FLOAT && size == c->size;
            break;
        case COL_BYTES:
            want = "array of unsigned bytes";
            ok = array_ok(mt, c->size, H5T_INTEGER, 1, H5T_SGN_NONE);
            break;
        case COL_INTS:
            want = "array of signed bytes";
            ok = array_ok(mt, c->size, H5T_INTEGER, 1, H5T_SGN_2);
            break;
        case COL_FLOATS:
            want = "array of doubles";
            ok = array_ok(mt, c->size / 8, H5T_FLOAT, 8, H5T_SGN_ERROR);
            break;
        }
        H5Tclose(mt);
        if (!ok) {
            H5Eclear2(H5E_DEFAULT);
            return ERROR_SET(err, "%s: %s: member %s is not a %zu-byte %s", path, t->name, c->name,
                             c->size, want);
        }
    }
    size_t total = H5Tget_size(dt);
    int nmembers = H5Tget_nmembers(dt), bad = 0;
    if (total == 0 || total > ROW_BYTES_MAX || nmembers < 1 || nmembers > 64) {
        H5Eclear2(H5E_DEFAULT);
        return ERROR_SET(err, "%s: %s: a row type of %zu bytes and %d members (damaged)", path,
                         t->name, total, nmembers);
    }
    if (!members_fit(dt, nmembers, total, &bad)) {
        char *name = bad >= 0 ? H5Tget_member_name(dt, (unsigned)bad) : NULL;
        if (bad < 0)
            ERROR_SET(err, "%s: %s: the members do not add up to the %zu-byte row (damaged)", path,
                      t->name, total);
        else
            ERROR_SET(err,
                      "%s: %s: member %s lies outside the %zu-byte row or over another "
                      "(damaged)",
                      path, t->name, name ? name : "?", total);
        H5free_memory(name);
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------------------
 * Attributes
 * ------------------------------------------------------------------------------------ */

static bool attr_write(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hid_t space,
                       const void *value, const char *path, RunError *err)
{
    hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        return runcols_hdf5_error(err, path, "cannot create attribute %s", name);
    herr_t st = H5Awrite(a, mtype, value);
    H5Aclose(a);
    return st < 0 ? runcols_hdf5_error(err, path, "cannot write attribute %s", name) : true;
}

bool runcols_attr_write_scalar(hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                               const void *value, const char *path, RunError *err)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    if (sp < 0)
        return runcols_hdf5_error(err, path, "cannot create a dataspace");
    bool ok = attr_write(obj, name, ftype, mtype, sp, value, path, err);
    H5Sclose(sp);
    return ok;
}

bool runcols_attr_put_u64(hid_t obj, const char *name, uint64_t v, const char *path, RunError *err)
{
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0)
        return runcols_hdf5_error(err, path, "cannot look for attribute %s", name);
    if (!ex)
        return runcols_attr_write_scalar(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v, path,
                                         err);
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    bool ok = a >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &v) >= 0;
    runcols_close_id(&a, H5Aclose);
    return ok || runcols_hdf5_error(err, path, "cannot write attribute %s", name);
}

bool runcols_attr_write_string(hid_t obj, const char *name, const char *s, const char *path,
                               RunError *err)
{
    hid_t t = string_type(strlen(s) + 1);
    if (t < 0)
        return runcols_hdf5_error(err, path, "cannot make a string type for %s", name);
    bool ok = runcols_attr_write_scalar(obj, name, t, t, s, path, err);
    H5Tclose(t);
    return ok;
}

bool runcols_attr_write_reasons(hid_t obj, const char *path, RunError *err)
{
    char names[REASON_NB][RUNFILE_REASON_NAME_SIZE];
    memset(names, 0, sizeof names);
    for (int r = 0; r < REASON_NB; r++)
        snprintf(names[r], sizeof names[r], "%s", rules_reason_name((Reason)r));
    hsize_t n = REASON_NB;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t t = string_type(RUNFILE_REASON_NAME_SIZE);
    bool ok = sp >= 0 && t >= 0
                  ? attr_write(obj, "reason_names", t, t, sp, names, path, err)
                  : runcols_hdf5_error(err, path, "cannot make the reason_names attribute");
    runcols_close_id(&t, H5Tclose);
    runcols_close_id(&sp, H5Sclose);
    return ok;
}

static bool attr_open(hid_t obj, const char *name, hid_t *a, const char *path, RunError *err)
{
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0)
        return runcols_hdf5_error(err, path, "cannot look for attribute %s", name);
    if (!ex)
        return ERROR_SET(err, "%s: attribute %s is missing", path, name);
    *a = H5Aopen(obj, name, H5P_DEFAULT);
    return *a < 0 ? runcols_hdf5_error(err, path, "cannot open attribute %s", name) : true;
}

bool runcols_attr_read_u64(hid_t obj, const char *name, uint64_t *v, const char *path,
                           RunError *err)
{
    hid_t a = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    if (!attr_open(obj, name, &a, path, err))
        return false;
    bool ok = false;
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    if (t < 0 || sp < 0)
        runcols_hdf5_error(err, path, "cannot read attribute %s", name);
    else if (H5Tget_class(t) != H5T_INTEGER || H5Tget_sign(t) != H5T_SGN_NONE ||
             H5Sget_simple_extent_npoints(sp) != 1)
        ERROR_SET(err, "%s: attribute %s is not an unsigned integer", path, name);
    else if (H5Aread(a, H5T_NATIVE_UINT64, v) < 0)
        runcols_hdf5_error(err, path, "cannot read attribute %s", name);
    else
        ok = true;
    runcols_close_id(&sp, H5Sclose);
    runcols_close_id(&t, H5Tclose);
    runcols_close_id(&a, H5Aclose);
    return ok;
}

bool runcols_attr_read_string(hid_t obj, const char *name, char **out, const char *path,
                              RunError *err)
{
    hid_t a = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    if (!attr_open(obj, name, &a, path, err))
        return false;
    bool ok = false;
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    if (t < 0 || sp < 0) {
        runcols_hdf5_error(err, path, "cannot read attribute %s", name);
    } else if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) != 0 || size < 1 ||
               size > RUNFILE_CONFIG_MAX + 1 || H5Sget_simple_extent_npoints(sp) != 1) {
        ERROR_SET(err, "%s: attribute %s is not a fixed-length string", path, name);
    } else if (!(*out = calloc(1, size + 1))) {
        ERROR_SET(err, "%s: out of memory reading attribute %s", path, name);
    } else if ((mt = string_type(size)) < 0 || H5Aread(a, mt, *out) < 0) {
        runcols_hdf5_error(err, path, "cannot read attribute %s", name);
    } else {
        ok = true;
    }
    runcols_close_id(&mt, H5Tclose);
    runcols_close_id(&sp, H5Sclose);
    runcols_close_id(&t, H5Tclose);
    runcols_close_id(&a, H5Aclose);
    return ok;
}

bool runcols_check_reasons(hid_t games, const char *path, RunError *err)
{
    hid_t a = H5I_INVALID_HID, t = H5I_INVALID_HID, sp = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    if (!attr_open(games, "reason_names", &a, path, err))
        return false;
    bool ok = false;
    char names[REASON_NB][RUNFILE_REASON_NAME_SIZE];
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (t < 0 || sp < 0 || n < 0) {
        runcols_hdf5_error(err, path, "cannot read /games reason_names");
    } else if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) != 0 ||
               H5Tget_size(t) != RUNFILE_REASON_NAME_SIZE || n > REASON_NB ||
               H5Sget_simple_extent_ndims(sp) != 1) {
        ERROR_SET(err, "%s: /games reason_names: not %d-byte strings for at most %d reasons", path,
                  RUNFILE_REASON_NAME_SIZE, REASON_NB);
    } else if ((mt = string_type(RUNFILE_REASON_NAME_SIZE)) < 0 || H5Aread(a, mt, names) < 0) {
        runcols_hdf5_error(err, path, "cannot read /games reason_names");
    } else {
        ok = true;
        for (int r = 0; ok && r < n; r++) {
            names[r][RUNFILE_REASON_NAME_SIZE - 1] = '\0';
            char shown[RUNFILE_REASON_NAME_SIZE * 4];
            textesc_printable(shown, sizeof shown, names[r]);
            if (strcmp(names[r], rules_reason_name((Reason)r)))
                ok = ERROR_SET(err, "%s: reason %d is \"%s\" in the file but \"%s\" here", path, r,
                               shown, rules_reason_name((Reason)r));
        }
    }
    runcols_close_id(&mt, H5Tclose);
    runcols_close_id(&sp, H5Sclose);
    runcols_close_id(&t, H5Tclose);
    runcols_close_id(&a, H5Aclose);
    return ok;
}

int64_t runcols_reason_count(hid_t games)
{
    hid_t a = H5Aopen(games, "reason_names", H5P_DEFAULT);
    hid_t sp = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    runcols_close_id(&sp, H5Sclose);
    runcols_close_id(&a, H5Aclose);
    return n;
}

/* ------------------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------------------ */

bool runcols_terminated(const char *s, size_t size)
{
    return memchr(s, '\0', size) != NULL;
}

RunGame runcols_game(const RunGameRow *r)
{
    RunGame g = {r->game_id,      r->pair_id, r->first_position, r->worker_rank, r->red_player,
                 r->black_player, r->plies,   r->game_in_pair,   r->outcome,     r->reason};
    return g;
}

/*
 * The transfer list of d's reads and writes, made at the first one. HDF5 converts rows
 * between the C structs and the packed file types through a conversion and a
 * background buffer; without buffers of its own it allocates and clears both (1 MiB
 * each, its default size) for every call, a sixth of the coordinator's time when it
 * stores a million positions a second. Should the list not be made, HDF5's default
 * does the same work more slowly.
 */
static hid_t transfer(RunDataset *d)
{
    enum { CONVERT_BYTES = 1 << 20 };
    if (d->dxpl >= 0)
        return d->dxpl;
    char *buf = malloc(2 * CONVERT_BYTES);
    hid_t dxpl = buf ? H5Pcreate(H5P_DATASET_XFER) : H5I_INVALID_HID;
    if (dxpl < 0 || H5Pset_buffer(dxpl, CONVERT_BYTES, buf, buf + CONVERT_BYTES) < 0) {
        runcols_close_id(&dxpl, H5Pclose);
        free(buf);
        H5Eclear2(H5E_DEFAULT);
        return H5P_DEFAULT;
    }
    d->dxpl = dxpl;
    d->convert = buf;
    return dxpl;
}

bool runcols_append(RunDataset *d, const void *rows, uint64_t n, const char *path, RunError *err)
{
    if (!n)
        return true;
    hsize_t start = d->stored, count = n, size = start + count;
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    bool ok = false;
    if (H5Dset_extent(d->dset, &size) < 0)
        runcols_hdf5_error(err, path, "cannot extend %s to %llu rows", RUNCOLS_TABLES[d->id].name,
                           (unsigned long long)size);
    else if ((fs = H5Dget_space(d->dset)) < 0 ||
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
             (ms = H5Screate_simple(1, &count, NULL)) < 0)
        runcols_hdf5_error(err, path, "cannot select rows of %s", RUNCOLS_TABLES[d->id].name);
    else if (H5Dwrite(d->dset, d->memtype, ms, fs, transfer(d), rows) < 0)
        runcols_hdf5_error(err, path, "cannot write %llu rows to %s", (unsigned long long)count,
                           RUNCOLS_TABLES[d->id].name);
    else
        ok = true;
    runcols_close_id(&ms, H5Sclose);
    runcols_close_id(&fs, H5Sclose);
    if (ok)
        d->stored = size;
    return ok;
}

bool runcols_read(RunDataset *d, uint64_t start, uint64_t n, void *out, const char *path,
                  RunError *err)
{
    if (!n)
        return true;
    d->reads++;
    hsize_t first = start, count = n;
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    bool ok = false;
    if ((fs = H5Dget_space(d->dset)) < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &first, NULL, &count, NULL) < 0 ||
        (ms = H5Screate_simple(1, &count, NULL)) < 0)
        runcols_hdf5_error(err, path, "cannot select rows %llu..%llu of %s",
                           (unsigned long long)start, (unsigned long long)(start + n - 1),
                           RUNCOLS_TABLES[d->id].name);
    else if (H5Dread(d->dset, d->memtype, ms, fs, transfer(d), out) < 0)
        runcols_hdf5_error(err, path, "cannot read rows %llu..%llu of %s",
                           (unsigned long long)start, (unsigned long long)(start + n - 1),
                           RUNCOLS_TABLES[d->id].name);
    else
        ok = true;
    runcols_close_id(&ms, H5Sclose);
    runcols_close_id(&fs, H5Sclose);
    return ok;
}

/* ------------------------------------------------------------------------------------
 * Datasets
 * ------------------------------------------------------------------------------------ */

void runcols_init(RunDataset *d, RunTableId id)
{
    d->id = id;
    d->dset = d->memtype = d->dxpl = H5I_INVALID_HID;
    d->convert = NULL;
    d->stored = d->reads = 0;
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

bool runcols_create(RunDataset *d, hid_t file, const char *path, RunError *err)
{
    const RunTable *tb = &RUNCOLS_TABLES[d->id];
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = tb->chunk;
    hid_t ft = H5I_INVALID_HID, sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID,
          dapl = H5I_INVALID_HID;
    bool ok = false;
    if ((ft = table_type(tb, true)) < 0 || (d->memtype = table_type(tb, false)) < 0)
        runcols_hdf5_error(err, path, "cannot build the types of %s", tb->name);
    else if ((sp = H5Screate_simple(1, &zero, &unlimited)) < 0 ||
             (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || (dapl = dataset_access()) < 0 ||
             H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
             H5Pset_deflate(dcpl, RUNFILE_DEFLATE_LEVEL) < 0 || H5Pset_fletcher32(dcpl) < 0)
        runcols_hdf5_error(err, path, "cannot set up %s", tb->name);
    else if ((d->dset = H5Dcreate2(file, tb->name, ft, sp, H5P_DEFAULT, dcpl, dapl)) < 0)
        runcols_hdf5_error(err, path, "cannot create %s", tb->name);
    else
        ok = runcols_attr_write_string(d->dset, "description", tb->description, path, err);
    runcols_close_id(&dapl, H5Pclose);
    runcols_close_id(&dcpl, H5Pclose);
    runcols_close_id(&sp, H5Sclose);
    runcols_close_id(&ft, H5Tclose);
    return ok;
}

/* The most rows and bytes of a chunk: 16 times the largest chunk the run file makes. */
enum { CHUNK_ROWS_MAX = 1 << 16, CHUNK_BYTES_MAX = 16 << 20 };

/* Whether a table's storage is as the run file makes it: chunked in rows, with no filter
 * but shuffle, deflate and Fletcher-32, and no more bytes than the file has. HDF5 trusts
 * these messages; a damaged one must be refused before the first read. */
static bool check_layout(const RunTable *tb, hid_t dset, const char *path, RunError *err)
{
    hid_t dcpl = H5Dget_create_plist(dset), ft = H5Dget_type(dset);
    hsize_t chunk = 0;
    size_t row = ft >= 0 ? H5Tget_size(ft) : 0;
    const char *why = NULL;
    char text[160] = "";
    if (dcpl < 0 || ft < 0)
        why = "cannot read its creation properties";
    else if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 1, &chunk) != 1)
        why = "not stored in chunks";
    else if (chunk == 0 || chunk > CHUNK_ROWS_MAX || chunk * row > CHUNK_BYTES_MAX) {
        snprintf(text, sizeof text, "chunks of %llu rows of %zu bytes", (unsigned long long)chunk,
                 row);
        why = text;
    }
    int nfilters = why ? 0 : H5Pget_nfilters(dcpl);
    if (nfilters < 0 || nfilters > 3)
        why = "a damaged filter list";
    for (int i = 0; !why && i < nfilters; i++) {
        unsigned flags = 0, values[8];
        size_t nvalues = 8;
        H5Z_filter_t f = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nvalues, values, 0, NULL, NULL);
        if (f != H5Z_FILTER_SHUFFLE && f != H5Z_FILTER_DEFLATE && f != H5Z_FILTER_FLETCHER32) {
            snprintf(text, sizeof text, "filter %d, not shuffle, deflate or Fletcher-32", (int)f);
            why = text;
        } else if (f == H5Z_FILTER_DEFLATE && (nvalues != 1 || values[0] > 9)) {
            why = "damaged deflate settings";
        }
    }
    struct stat st;
    hsize_t bytes = why ? 0 : H5Dget_storage_size(dset);
    if (!why && stat(path, &st) == 0 && bytes > (hsize_t)st.st_size) {
        snprintf(text, sizeof text, "%llu bytes of rows in a file of %lld",
                 (unsigned long long)bytes, (long long)st.st_size);
        why = text;
    }
    runcols_close_id(&ft, H5Tclose);
    runcols_close_id(&dcpl, H5Pclose);
    H5Eclear2(H5E_DEFAULT);
    return why ? ERROR_SET(err, "%s: %s: %s (damaged)", path, tb->name, why) : true;
}

bool runcols_open(RunDataset *d, hid_t file, uint64_t *extent, const char *path, RunError *err)
{
    const RunTable *tb = &RUNCOLS_TABLES[d->id];
    htri_t ex = H5Lexists(file, tb->name + 1, H5P_DEFAULT);
    if (ex < 0)
        return runcols_hdf5_error(err, path, "cannot look for %s", tb->name);
    if (!ex)
        return ERROR_SET(err, "%s: dataset %s is missing", path, tb->name);
    if (!runheader_check(file, tb->name, path, err))
        return false;
    hid_t dapl = dataset_access();
    if (dapl < 0)
        return runcols_hdf5_error(err, path, "cannot set up a chunk cache");
    d->dset = H5Dopen2(file, tb->name, dapl);
    H5Pclose(dapl);
    if (d->dset < 0)
        return runcols_hdf5_error(err, path, "cannot open dataset %s", tb->name);
    hid_t dt = H5Dget_type(d->dset);
    if (dt < 0)
        return runcols_hdf5_error(err, path, "cannot read the type of %s", tb->name);
    bool ok = check_table_type(tb, dt, path, err);
    H5Tclose(dt);
    if (!ok)
        return false;
    hid_t sp = H5Dget_space(d->dset);
    hsize_t dims = 0, maxdims = 0;
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (nd == 1)
        H5Sget_simple_extent_dims(sp, &dims, &maxdims);
    if (sp >= 0)
        H5Sclose(sp);
    if (nd != 1 || maxdims != H5S_UNLIMITED)
        return ERROR_SET(err, "%s: %s is not a one-dimensional extendible dataset", path, tb->name);
    *extent = dims;
    if (!check_layout(tb, d->dset, path, err))
        return false;
    if ((d->memtype = table_type(tb, false)) < 0)
        return runcols_hdf5_error(err, path, "cannot build the type of %s", tb->name);
    return true;
}

bool runcols_close(RunDataset *d, const char *path, RunError *err)
{
    bool ok = true;
    if (d->dset >= 0 && H5Dclose(d->dset) < 0)
        ok = runcols_hdf5_error(err, path, "cannot close %s", RUNCOLS_TABLES[d->id].name);
    d->dset = H5I_INVALID_HID;
    runcols_close_id(&d->memtype, H5Tclose);
    runcols_close_id(&d->dxpl, H5Pclose);
    free(d->convert);
    d->convert = NULL;
    return ok;
}
