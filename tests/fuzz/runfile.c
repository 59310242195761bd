/*
 * Fuzz harness for the run-file reader (contracts/runload.c, contracts/runread.c).
 *
 * libhdf5 is not hardened against corrupt bytes, so the input does not give the bytes
 * of a file: it is a list of edits made with the HDF5 API to a copy of a valid small run
 * file (built once per process in a temporary directory). Each edit is an opcode byte
 * and its operands; missing operand bytes read as 0. The edits:
 *   - a root attribute (schema_version, run_id, engine_version, run_config, created)
 *     replaced by an integer of another size or sign, a float, a fixed or variable
 *     string of any length and padding, an array, or an empty one;
 *   - an attribute deleted; /games reason_names replaced by other names, counts, sizes;
 *   - bytes of one field of one row, or of one column in every row, overwritten or
 *     shifted (game ids, first_position, plies, players, boards, strings...);
 *   - a table resized (shrunk, grown with fill values, made huge), a row copied over
 *     another, a table deleted;
 *   - a table rebuilt with a member dropped, retyped (size, sign, float, string or array
 *     length) or added, with other chunking and filters, or as a fixed-size, 2-D or
 *     scalar dataset, a plain integer dataset, or a group.
 * The run-file reader then opens the edited file and must refuse it with a message, or
 * accept it and then read every game, every position and verify without reading out of
 * bounds; games it reads must survive record_validate's replay. A file that it accepts
 * and verifies is also opened for append, given one more game, and must then read back
 * and verify with that game in it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "contracts/runfile.h"
#include "movegen.h"
#include "tests/support/runcheck.h"

enum { TABLE_NB = 3, ROOT_ATTR_NB = 5, ROW_LIMIT = 1 << 20 };

static const char *const TABLES[TABLE_NB] = {"/games", "/positions", "/players"};
static const char *const ROOT_ATTRS[ROOT_ATTR_NB] = {"schema_version", "run_id", "engine_version",
                                                     "run_config", "created"};

static char g_dir[256], g_base[300], g_work[300];
static unsigned char *g_base_bytes;
static size_t g_base_len;
static GameRecord g_games[5], g_read;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-runfile: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* ---- the input as operands ------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n, at;
} Input;

static unsigned take8(Input *in)
{
    return in->at < in->n ? in->p[in->at++] : 0;
}

static uint64_t take(Input *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)take8(in) << (8 * i);
    return v;
}

/* ---- the valid file every input starts from -------------------------------------- */

/* A legal game of at most `plies` plies picked by seed, drawn by the move limit unless
 * the rules end it first. */
static void make_game(GameRecord *r, unsigned seed, int plies)
{
    static Position pos;
    PosError err;
    record_init(r, 0, NULL);
    if (!pos_set_fen(&pos, r->start_fen, &err))
        die("start FEN refused", err.msg);
    r->outcome = OUTCOME_DRAW;
    r->reason = REASON_MOVE_LIMIT;
    for (int i = 0; i < plies; i++) {
        MoveList list;
        if (gen_legal(&pos, &list) == 0)
            break;
        RecordPly p = {0};
        p.move = list.moves[(seed + 13u * (unsigned)i) % (unsigned)list.count];
        p.best = p.move;
        p.score = (int16_t)((seed + 37u * (unsigned)i) % 200) - 100;
        p.depth = (uint8_t)(1 + i % 9);
        p.flags = record_move_flags(&pos, p.move);
        p.nodes = seed * 1000u + (unsigned)i;
        record_push(r, &p);
        pos_do_move(&pos, p.move);
        Verdict v = rules_judge_game(&pos);
        if (v.result != RESULT_NONE) {
            r->outcome = record_outcome_from(pos.side, v.result);
            r->reason = v.reason;
            break;
        }
    }
    if (!record_validate(r, &err))
        die("a generated game does not validate", err.msg);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot read", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        die("cannot read", path);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void cleanup(void)
{
    unlink(g_work);
    unlink(g_base);
    rmdir(g_dir);
    free(g_base_bytes);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    position_init();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the edits fail often, and quietly */
    /* HDF5 frees its 1 MB conversion buffers after each read unless its free lists may
     * keep them: fresh pages for every read were most of the time of an input */
    H5set_free_list_limits(-1, -1, -1, -1, -1, -1);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/chuhe-fuzz-runfile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir))
        die("cannot make a temporary directory", g_dir);
    snprintf(g_base, sizeof g_base, "%s/base.h5", g_dir);
    snprintf(g_work, sizeof g_work, "%s/work.h5", g_dir);
    atexit(cleanup);

    RunError err;
    RunFile *rf = runfile_create(g_base, "{\"mode\": \"fuzz\", \"nodes\": 50}", "fuzz", &err);
    uint16_t a, b;
    if (!rf || !runfile_add_player(rf, "chuhe-a", "builtin", "", 0x1111, &a, &err) ||
        !runfile_add_player(rf, "chuhe-b", "builtin", "/w/b.weights", 0x2222, &b, &err))
        die("cannot create the base run file", err.msg);
    /* a game with no plies, short and longer ones, both colours of a pair */
    const int plies[5] = {0, 7, 30, 12, 20};
    for (int k = 0; k < 5; k++) {
        make_game(&g_games[k], 77 + (unsigned)k, plies[k]);
        if (k < 4 && !runfile_append_game(rf, &g_games[k], (uint64_t)k / 2, (unsigned)k % 2,
                                          k % 2 ? b : a, k % 2 ? a : b, (uint32_t)k, NULL, &err))
            die("cannot append a game to the base run file", err.msg);
    }
    if (!runfile_close(&rf, &err))
        die("cannot close the base run file", err.msg);
    g_base_bytes = slurp(g_base, &g_base_len);
    return 0;
}

/* ---- edits ----------------------------------------------------------------------- */

static void close_h5(hid_t id)
{
    if (id >= 0)
        H5Idec_ref(id);
}

/* Replaces attribute `name` of obj by one of the given type and space holding buf. */
static void put_attr(hid_t obj, const char *name, hid_t type, hid_t space, const void *buf)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0 && buf)
        H5Awrite(a, type, buf);
    close_h5(a);
}

static void edit_root_attr(hid_t file, Input *in)
{
    const char *name = ROOT_ATTRS[take8(in) % ROOT_ATTR_NB];
    unsigned form = take8(in) % 9;
    hid_t scalar = H5Screate(H5S_SCALAR);
    static const hid_t *const INTS[] = {&H5T_STD_U32LE_g, &H5T_STD_U64LE_g, &H5T_STD_U8LE_g,
                                        &H5T_STD_I64LE_g, &H5T_STD_U16BE_g};
    if (form < 5) {
        uint64_t v = take(in, 8); /* its low bytes, as the file type has them */
        put_attr(file, name, *INTS[form], scalar, &v);
    } else if (form == 5) {
        double v = (double)(int64_t)take(in, 8) / 3.0;
        put_attr(file, name, H5T_IEEE_F64LE, scalar, &v);
    } else if (form == 6 || form == 7) {
        size_t len = take8(in);
        char text[256] = {0};
        for (size_t i = 0; i < len; i++)
            text[i] = (char)take8(in);
        hid_t t = H5Tcopy(H5T_C_S1);
        if (form == 6) {
            static const H5T_str_t PADS[3] = {H5T_STR_NULLTERM, H5T_STR_NULLPAD, H5T_STR_SPACEPAD};
            H5Tset_size(t, len ? len : 1);
            H5Tset_strpad(t, PADS[take8(in) % 3]);
            put_attr(file, name, t, scalar, text);
        } else {
            const char *p = text;
            H5Tset_size(t, H5T_VARIABLE);
            put_attr(file, name, t, scalar, &p);
        }
        close_h5(t);
    } else {
        /* an array of 0 to 3 values, or a long string around the run_config limit */
        unsigned k = take8(in) % 5;
        if (k < 4) {
            hsize_t dim = k;
            uint64_t v[3] = {take(in, 8), take(in, 8), take(in, 8)};
            hid_t sp = k ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_NULL);
            put_attr(file, name, H5T_STD_U64LE, sp, k ? v : NULL);
            close_h5(sp);
        } else {
            size_t len = 59990 + take8(in) % 20;
            char *text = malloc(len);
            if (!text)
                die("out of memory", NULL);
            memset(text, '{', len - 1);
            text[len - 1] = '\0';
            hid_t t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, len);
            put_attr(file, name, t, scalar, text);
            close_h5(t);
            free(text);
        }
    }
    close_h5(scalar);
}

static void edit_delete_attr(hid_t file, Input *in)
{
    unsigned which = take8(in) % (ROOT_ATTR_NB + 2);
    if (which < ROOT_ATTR_NB) {
        H5Adelete(file, ROOT_ATTRS[which]);
        return;
    }
    hid_t obj = H5Oopen(file, TABLES[take8(in) % TABLE_NB], H5P_DEFAULT);
    if (obj >= 0)
        H5Adelete(obj, which == ROOT_ATTR_NB ? "reason_names" : "description");
    close_h5(obj);
}

static void edit_reason_names(hid_t file, Input *in)
{
    static const size_t SIZES[4] = {RUNFILE_REASON_NAME_SIZE, 16, RUNFILE_REASON_NAME_SIZE + 1, 64};
    hsize_t n = take8(in) % (REASON_NB + 3);
    size_t size = SIZES[take8(in) % 4];
    bool scalar = take8(in) % 8 == 0;
    char *names = calloc(n ? n : 1, size);
    if (!names)
        die("out of memory", NULL);
    for (hsize_t i = 0; i < n; i++)
        snprintf(names + i * size, size, "%s", rules_reason_name((Reason)(i % REASON_NB)));
    if (n) {
        size_t at = take(in, 2) % (n * size);
        names[at] = (char)take8(in);
    }
    hid_t obj = H5Oopen(file, "/games", H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, size);
    hid_t sp = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    if (obj >= 0)
        put_attr(obj, "reason_names", t, sp, names);
    close_h5(sp);
    close_h5(t);
    close_h5(obj);
    free(names);
}

/* A table opened with its rows' native compound type; false when it is not one. */
typedef struct {
    hid_t dset, ftype, mtype, space;
    hsize_t rows;
    size_t row_size;
    int nmembers;
} Table;

static bool table_open(hid_t file, const char *name, Table *t)
{
    memset(t, 0, sizeof *t);
    t->dset = t->ftype = t->mtype = t->space = H5I_INVALID_HID;
    if ((t->dset = H5Dopen2(file, name, H5P_DEFAULT)) < 0 ||
        (t->ftype = H5Dget_type(t->dset)) < 0 || H5Tget_class(t->ftype) != H5T_COMPOUND ||
        (t->mtype = H5Tget_native_type(t->ftype, H5T_DIR_ASCEND)) < 0 ||
        (t->space = H5Dget_space(t->dset)) < 0 || H5Sget_simple_extent_ndims(t->space) != 1)
        return false;
    H5Sget_simple_extent_dims(t->space, &t->rows, NULL);
    t->row_size = H5Tget_size(t->mtype);
    t->nmembers = H5Tget_nmembers(t->mtype);
    return t->nmembers > 0;
}

static void table_close(Table *t)
{
    close_h5(t->space);
    close_h5(t->mtype);
    close_h5(t->ftype);
    close_h5(t->dset);
}

/* Reads (or writes) rows [row, row + n) in the native type. */
static bool table_io(Table *t, hsize_t row, hsize_t n, void *buf, bool write)
{
    hid_t fs = H5Dget_space(t->dset), ms = H5Screate_simple(1, &n, NULL);
    bool ok = fs >= 0 && ms >= 0 &&
              H5Sselect_hyperslab(fs, H5S_SELECT_SET, &row, NULL, &n, NULL) >= 0 &&
              (write ? H5Dwrite(t->dset, t->mtype, ms, fs, H5P_DEFAULT, buf)
                     : H5Dread(t->dset, t->mtype, ms, fs, H5P_DEFAULT, buf)) >= 0;
    close_h5(ms);
    close_h5(fs);
    return ok;
}

/* Overwrites (or adds a small signed delta to) bytes of one member, in one row or all. */
static void edit_field(hid_t file, Input *in, bool column)
{
    Table t;
    if (table_open(file, TABLES[take8(in) % TABLE_NB], &t) && t.rows > 0 && t.rows <= ROW_LIMIT) {
        unsigned m = take8(in) % (unsigned)t.nmembers;
        size_t off = H5Tget_member_offset(t.mtype, m);
        hid_t mt = H5Tget_member_type(t.mtype, m);
        size_t msize = mt >= 0 ? H5Tget_size(mt) : 0;
        close_h5(mt);
        hsize_t first = column ? 0 : take(in, 2) % t.rows, n = column ? t.rows : 1;
        bool add = take8(in) & 1;
        size_t at = msize ? take8(in) % msize : 0;
        uint8_t bytes[8];
        int8_t delta = (int8_t)take8(in);
        for (int i = 0; i < 8; i++)
            bytes[i] = (uint8_t)take8(in);
        unsigned char *rows = malloc((size_t)n * t.row_size);
        if (rows && msize && table_io(&t, first, n, rows, false)) {
            for (hsize_t r = 0; r < n; r++) {
                unsigned char *f = rows + r * t.row_size + off;
                if (add && msize <= 8) { /* a little-endian integer plus delta */
                    uint64_t v = 0;
                    memcpy(&v, f, msize);
                    v += (uint64_t)(int64_t)delta;
                    memcpy(f, &v, msize);
                } else {
                    size_t len = msize - at < 8 ? msize - at : 8;
                    memcpy(f + at, bytes, len);
                }
            }
            table_io(&t, first, n, rows, true);
        }
        free(rows);
    }
    table_close(&t);
}

static void edit_resize(hid_t file, Input *in)
{
    hid_t d = H5Dopen2(file, TABLES[take8(in) % TABLE_NB], H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t dims = 0;
    if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1) {
        H5Sget_simple_extent_dims(sp, &dims, NULL);
        hsize_t old = dims;
        unsigned mode = take8(in) % 3;
        int8_t delta = (int8_t)take8(in);
        if (mode == 0)
            dims = (int64_t)dims + delta < 0 ? 0 : (hsize_t)((int64_t)dims + delta);
        else if (mode == 1)
            dims = take(in, 4);
        else
            dims = (hsize_t)1 << (take8(in) % 62);
        /* HDF5 visits every chunk of a range it cuts off: not from a huge table */
        if (dims >= old || old <= ROW_LIMIT)
            H5Dset_extent(d, &dims);
    }
    close_h5(sp);
    close_h5(d);
}

static void edit_copy_row(hid_t file, Input *in)
{
    Table t;
    if (table_open(file, TABLES[take8(in) % TABLE_NB], &t) && t.rows > 0 && t.rows <= ROW_LIMIT) {
        hsize_t from = take(in, 2) % t.rows, to = take(in, 2) % t.rows;
        unsigned char *row = malloc(t.row_size);
        if (row && table_io(&t, from, 1, row, false))
            table_io(&t, to, 1, row, true);
        free(row);
    }
    table_close(&t);
}

static herr_t copy_one_attr(hid_t src, const char *name, const H5A_info_t *info, void *dst)
{
    (void)info;
    hid_t a = H5Aopen(src, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    hid_t sp = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    void *buf = n >= 0 && size ? calloc((size_t)n + 1, size) : NULL;
    if (buf && H5Tis_variable_str(t) == 0 && H5Aread(a, t, buf) >= 0)
        put_attr(*(hid_t *)dst, name, t, sp, buf);
    free(buf);
    close_h5(sp);
    close_h5(t);
    close_h5(a);
    return 0;
}

/* The file type of a table with member `victim` dropped, changed, or followed by an
 * extra member, as `how` says (0 keeps every member as it is). */
static hid_t changed_type(const Table *t, unsigned victim, unsigned how, Input *in)
{
    size_t total = 0;
    hid_t members[64];
    int n = t->nmembers < 64 ? t->nmembers : 64;
    for (int i = 0; i < n; i++) {
        members[i] = H5Tget_member_type(t->ftype, (unsigned)i);
        if (i == (int)victim && how == 2) { /* another integer size or sign, a float */
            static const hid_t *const OTHER[] = {&H5T_STD_U8LE_g,   &H5T_STD_I16LE_g,
                                                 &H5T_STD_U32LE_g,  &H5T_STD_I64LE_g,
                                                 &H5T_IEEE_F32LE_g, &H5T_STD_U16BE_g};
            close_h5(members[i]);
            members[i] = H5Tcopy(*OTHER[take8(in) % 6]);
        } else if (i == (int)victim && how == 3) { /* another string or array size */
            size_t size = 1 + take8(in) % 300;
            if (H5Tget_class(members[i]) == H5T_ARRAY) {
                hsize_t dim = size % 64;
                close_h5(members[i]);
                members[i] = H5Tarray_create2(H5T_STD_U8LE, 1, &dim);
            } else {
                close_h5(members[i]);
                members[i] = H5Tcopy(H5T_C_S1);
                H5Tset_size(members[i], size);
            }
        }
        if (members[i] >= 0 && !(i == (int)victim && how == 1))
            total += H5Tget_size(members[i]);
    }
    hid_t ct = H5Tcreate(H5T_COMPOUND, total + (how == 4 ? 4 : 0));
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        if (members[i] >= 0 && !(i == (int)victim && how == 1) && ct >= 0) {
            char *name = H5Tget_member_name(t->ftype, (unsigned)i);
            if (name)
                H5Tinsert(ct, name, off, members[i]);
            H5free_memory(name);
            off += H5Tget_size(members[i]);
        }
        close_h5(members[i]);
    }
    if (how == 4 && ct >= 0)
        H5Tinsert(ct, "extra", off, H5T_STD_U32LE);
    return ct;
}

/* Rebuilds a table under its name: a changed row type, other chunks and filters, or
 * another shape; its rows (converted member by member) and attributes come along. */
static void edit_rebuild(hid_t file, Input *in)
{
    const char *name = TABLES[take8(in) % TABLE_NB];
    Table t;
    unsigned shape = take8(in) % 6, victim = take8(in), how = take8(in) % 5;
    hsize_t chunk = 1 + take(in, 2) % 2048;
    unsigned filters = take8(in) % 4;
    if (!table_open(file, name, &t) || t.rows > ROW_LIMIT) {
        table_close(&t);
        return;
    }
    victim %= (unsigned)t.nmembers;
    unsigned char *rows = malloc((size_t)(t.rows ? t.rows : 1) * t.row_size);
    hid_t ft = changed_type(&t, victim, how, in);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t sp = H5I_INVALID_HID, d = H5I_INVALID_HID;
    hsize_t dims2[2] = {t.rows, 1}, max2[2] = {H5S_UNLIMITED, 1}, chunk2[2] = {chunk, 1};
    hsize_t unlimited = H5S_UNLIMITED;
    bool have_rows = rows && table_io(&t, 0, t.rows, rows, false);
    switch (shape) {
    case 0: /* same shape, other chunks and filters */
    case 1:
        sp = H5Screate_simple(1, &t.rows, &unlimited);
        H5Pset_chunk(dcpl, 1, &chunk);
        if (filters & 1)
            H5Pset_fletcher32(dcpl);
        if (filters & 2) {
            H5Pset_shuffle(dcpl);
            H5Pset_deflate(dcpl, 1);
        }
        break;
    case 2: /* fixed size, contiguous */
        sp = H5Screate_simple(1, &t.rows, NULL);
        break;
    case 3: /* two-dimensional */
        sp = H5Screate_simple(2, dims2, max2);
        H5Pset_chunk(dcpl, 2, chunk2);
        break;
    case 4: /* one scalar row */
        sp = H5Screate(H5S_SCALAR);
        break;
    default: /* no rows at all, and not a compound */
        close_h5(ft);
        ft = H5Tcopy(H5T_STD_I32LE);
        sp = H5Screate_simple(1, &t.rows, &unlimited);
        H5Pset_chunk(dcpl, 1, &chunk);
        break;
    }
    hid_t old = H5Oopen(file, name, H5P_DEFAULT);
    H5Ldelete(file, name, H5P_DEFAULT);
    if (take8(in) % 8 == 0) {
        close_h5(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    } else if (ft >= 0 && sp >= 0 &&
               (d = H5Dcreate2(file, name, ft, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) >= 0) {
        if (have_rows && shape < 5 && t.rows) /* the scalar takes the first row */
            H5Dwrite(d, t.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows);
        if (old >= 0)
            H5Aiterate2(old, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, copy_one_attr, &d);
    }
    close_h5(d);
    close_h5(old);
    close_h5(sp);
    close_h5(dcpl);
    close_h5(ft);
    free(rows);
    table_close(&t);
}

static void apply_edits(const uint8_t *data, size_t size)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    hid_t file = H5Fopen(g_work, H5F_ACC_RDWR, fapl);
    close_h5(fapl);
    if (file < 0)
        die("cannot open the copy of the base file", g_work);
    Input in = {data, size, 0};
    for (int k = 0; k < 32 && in.at < in.n; k++) {
        switch (take8(&in) % 9) {
        case 0:
            edit_root_attr(file, &in);
            break;
        case 1:
            edit_delete_attr(file, &in);
            break;
        case 2:
            edit_reason_names(file, &in);
            break;
        case 3:
            edit_field(file, &in, false);
            break;
        case 4:
            edit_field(file, &in, true);
            break;
        case 5:
            edit_resize(file, &in);
            break;
        case 6:
            edit_copy_row(file, &in);
            break;
        case 7:
            H5Ldelete(file, TABLES[take8(&in) % TABLE_NB], H5P_DEFAULT);
            break;
        default:
            edit_rebuild(file, &in);
            break;
        }
    }
    if (H5Fclose(file) < 0)
        die("cannot close the edited file", g_work);
}

/* ---- what the reader must do ----------------------------------------------------- */

static void expect_message(const RunError *err, const char *what)
{
    if (!runcheck_message(err, g_work))
        die(what, "the error message is not one line naming the file");
}

/* Reads everything of an accepted file; returns whether it verifies. */
static bool read_all(RunFile *rf)
{
    bool verified;
    const char *bad = runcheck_read_all(rf, g_work, &g_read, &verified);
    if (bad)
        die(bad, NULL);
    return verified;
}

/* Appends one more game to a file the reader verified; it must then verify with it. */
static void append_one(uint64_t games_before)
{
    RunError err = {{0}};
    RunFile *rf = runfile_open_append(g_work, &err);
    if (!rf) {
        expect_message(&err, "open_append refused");
        return;
    }
    /* after a stored pair 2^64-2 there is no pair id left: that append is refused */
    uint64_t pair = runfile_next_pair_id(rf);
    if (pair == UINT64_MAX) {
        if (runfile_append_game(rf, &g_games[4], pair, 0, 0, 0, 9, NULL, &err))
            die("a game of pair 2^64-1 was taken", NULL);
        expect_message(&err, "append refused");
        runfile_close(&rf, &err);
        return;
    }
    uint16_t player = 0;
    bool ok = (runfile_player_count(rf) > 0 ||
               runfile_add_player(rf, "late", "builtin", "", 7, &player, &err)) &&
              runfile_append_game(rf, &g_games[4], pair, 0, player, player, 9, NULL, &err);
    if (!runfile_close(&rf, &err) || !ok)
        die("appending to an accepted file failed", err.msg);
    rf = runfile_open_read(g_work, &err);
    if (!rf)
        die("a file appended to does not open", err.msg);
    if (runfile_game_count(rf) != games_before + 1 || !read_all(rf))
        die("a file appended to does not verify with the new game", NULL);
    if (!runfile_read_game(rf, games_before, &g_read, &err) || g_read.nplies != g_games[4].nplies ||
        memcmp(g_read.plies, g_games[4].plies, sizeof g_read.plies[0] * (size_t)g_read.nplies))
        die("the appended game does not read back", err.msg);
    runfile_close(&rf, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(g_work, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, g_base_bytes, g_base_len) != (ssize_t)g_base_len || close(fd) < 0)
        die("cannot copy the base file", g_work);
    if (size)
        apply_edits(data, size);

    RunError err = {{0}};
    RunFile *rf = runfile_open_read(g_work, &err);
    if (!rf) {
        expect_message(&err, "open_read refused");
        return 0;
    }
    uint64_t games = runfile_game_count(rf);
    bool verified = read_all(rf);
    if (!runfile_close(&rf, &err))
        die("closing a file opened for reading failed", err.msg);
    if (!size && (!verified || games != 4))
        die("the base file does not verify", NULL);
    if (verified)
        append_one(games);
    return 0;
}
