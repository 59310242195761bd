/*
 * The security and limits of the coordinator/worker link, without sockets: CURVE key
 * pairs and key files (modes, no overwriting, the derived public key), allow-lists (names,
 * comments, keys with a '#' in them, every malformed line named by file and line), the
 * loopback rule for endpoints, the longest message a worker sends, and the per-worker
 * limits (token bucket, flood detection, pairs held unacknowledged).
 * Files live in a scratch directory that the group teardown removes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zmq.h>

#include "coordinator/coord_config.h"
#include "coordinator/coord_quota.h"
#include "contracts/keys.h"
#include "contracts/protocol.h"
#include "tests/support/scratch.h"

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

static char *read_all(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A fresh key pair's Z85 texts. */
static void fresh_keys(char pub[41], char sec[41])
{
    assert_int_equal(zmq_curve_keypair(pub, sec), 0);
}

/* ---- key pairs and key files -------------------------------------------------------- */

static void test_keygen(void **state)
{
    (void)state;
    if (!keys_curve_available())
        skip();
    KeyPair made, back;
    KeysError err;
    char base[320];
    snprintf(base, sizeof base, "%s", scratch_path("node7"));
    if (!keys_generate(base, &made, &err))
        fail_msg("keygen: %s", err.msg);
    assert_int_equal(mode_of(scratch_path("node7.key")), 0600);
    assert_int_equal(mode_of(scratch_path("node7.pub")), 0644);
    assert_int_equal(strlen(made.public_z85), 40);
    /* the files are text: a comment and the secret; the public key and its name */
    char line[200];
    snprintf(line, sizeof line, "%s # node7\n", made.public_z85);
    assert_string_equal(read_all(scratch_path("node7.pub")), line);
    assert_non_null(strstr(read_all(scratch_path("node7.key")), made.secret_z85));
    /* reading the secret derives the same public key */
    assert_true(keys_read_secret(scratch_path("node7.key"), &back, &err));
    assert_string_equal(back.secret_z85, made.secret_z85);
    assert_string_equal(back.public_z85, made.public_z85);
    char pub[41];
    assert_true(keys_read_public(scratch_path("node7.pub"), pub, &err));
    assert_string_equal(pub, made.public_z85);

    /* never over an existing file: both stay as they were */
    char before[4096];
    snprintf(before, sizeof before, "%s", read_all(scratch_path("node7.key")));
    assert_false(keys_generate(base, &back, &err));
    assert_non_null(strstr(err.msg, "node7.key exists"));
    assert_string_equal(read_all(scratch_path("node7.key")), before);
    /* a half pair on disk is refused too, and nothing is added */
    write_text(scratch_path("half.pub"), "x\n", 0644);
    assert_false(keys_generate(scratch_path("half"), &back, &err));
    assert_non_null(strstr(err.msg, "half.pub exists"));
    assert_int_equal(access(scratch_path("half.key"), F_OK), -1);
}

static void test_key_files_refused(void **state)
{
    (void)state;
    if (!keys_curve_available())
        skip();
    char pub[41], sec[41], text[300];
    KeyPair kp;
    KeysError err;
    fresh_keys(pub, sec);
    snprintf(text, sizeof text, "# a secret\n%s\n", sec);
    write_text(scratch_path("open.key"), text, 0644);
    assert_false(keys_read_secret(scratch_path("open.key"), &kp, &err));
    assert_non_null(strstr(err.msg, "mode is 0644 (chmod 600"));
    assert_int_equal(chmod(scratch_path("open.key"), 0600), 0);
    assert_true(keys_read_secret(scratch_path("open.key"), &kp, &err));

    write_text(scratch_path("two.key"), "", 0600);
    snprintf(text, sizeof text, "%s\n%s\n", sec, sec);
    write_text(scratch_path("two.key"), text, 0600);
    assert_false(keys_read_secret(scratch_path("two.key"), &kp, &err));
    assert_non_null(strstr(err.msg, "two.key:2: a second key"));

    write_text(scratch_path("empty.pub"), "# nothing here\n\n", 0644);
    assert_false(keys_read_public(scratch_path("empty.pub"), pub, &err));
    assert_non_null(strstr(err.msg, "no key"));
    assert_false(keys_read_public(scratch_path("missing.pub"), pub, &err));
    assert_non_null(strstr(err.msg, "missing.pub: No such file"));
    assert_false(keys_read_public(scratch_dir(), pub, &err));
    assert_non_null(strstr(err.msg, "not a regular file"));
}

/* ---- allow-lists ---------------------------------------------------------------------- */

/* A key with a '#' in its text: Z85 has '#' among its characters (never first). */
static void hash_key(char pub[41])
{
    char sec[41];
    for (int i = 0; i < 1000; i++) {
        fresh_keys(pub, sec);
        if (strchr(pub, '#'))
            return;
    }
    fail_msg("no key with a '#'");
}

static void test_allow_list(void **state)
{
    (void)state;
    if (!keys_curve_available())
        skip();
    char a[41], b[41], c[41], sec[41], text[1000];
    fresh_keys(a, sec);
    fresh_keys(b, sec);
    hash_key(c);
    snprintf(text, sizeof text,
             "# workers of job 17\n"
             "\n"
             "%s # node1\n"
             "   %s\t#   node2 rank 0-31  \n"
             "%s\n",
             a, b, c);
    const char *path = scratch_path("allowed");
    write_text(path, text, 0644);
    AllowList l;
    KeysError err;
    if (!keys_allow_load(path, &l, &err))
        fail_msg("load: %s", err.msg);
    assert_int_equal(l.count, 3);
    const AllowedKey *k = keys_allow_find(&l, a);
    assert_non_null(k);
    assert_string_equal(k->name, "node1");
    assert_int_equal(k->line, 3);
    k = keys_allow_find(&l, b);
    assert_non_null(k);
    assert_string_equal(k->name, "node2 rank 0-31");
    k = keys_allow_find(&l, c);
    assert_non_null(k);
    assert_string_equal(k->name, "");
    assert_int_equal(k->line, 5);
    assert_null(keys_allow_find(&l, sec));
    assert_null(keys_allow_find(&l, ""));
    keys_allow_free(&l);
    assert_int_equal(l.count, 0);
}

static void expect_list_error(const char *text, const char *message)
{
    const char *path = scratch_path("bad-list");
    write_text(path, text, 0644);
    AllowList l = {NULL, 5};
    KeysError err;
    assert_false(keys_allow_load(path, &l, &err));
    assert_null(l.keys);
    assert_int_equal(l.count, 0);
    char want[600];
    snprintf(want, sizeof want, "%s%s", path, message);
    if (!strstr(err.msg, want))
        fail_msg("expected '%s' in '%s'", want, err.msg);
}

static void test_allow_list_errors(void **state)
{
    (void)state;
    if (!keys_curve_available())
        skip();
    char a[41], sec[41], text[3000];
    fresh_keys(a, sec);
    snprintf(text, sizeof text, "# ok\n%s\nnot-a-key\n", a);
    expect_list_error(text, ":3: 'not-a-key' is not a key");
    snprintf(text, sizeof text, "%s\n%.39s\n", a, a);
    expect_list_error(text, ":2: '");
    snprintf(text, sizeof text, "%s junk\n", a);
    expect_list_error(text, ":1: text after the key");
    char bad[41];
    snprintf(bad, sizeof bad, "%s", a);
    bad[7] = '"'; /* not a Z85 character */
    snprintf(text, sizeof text, "%s\n", bad);
    expect_list_error(text, ":1: '");
    snprintf(text, sizeof text, "%s # first\n\n%s # again\n", a, a);
    expect_list_error(text, ":3: the same key as line 1");
    expect_list_error("# only comments\n\n", ": no keys");
    memset(text, 'x', 700);
    text[700] = '\n';
    text[701] = '\0';
    expect_list_error(text, ":1: longer than 512 bytes");
    /* a NUL inside a line */
    const char *path = scratch_path("nul-list");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", a);
    fwrite("ab\0cd\n", 1, 6, f);
    fclose(f);
    AllowList l;
    KeysError err;
    assert_false(keys_allow_load(path, &l, &err));
    assert_non_null(strstr(err.msg, "nul-list:2: a NUL byte"));
}

/* ---- endpoints and messages --------------------------------------------------------- */

static void test_loopback_rule(void **state)
{
    (void)state;
    const char *local[] = {"tcp://127.0.0.1:5555", "tcp://127.0.0.1:*", "tcp://127.3.2.1:1",
                           "tcp://localhost:5555", "tcp://[::1]:5555",  "tcp://::1:5555",
                           "tcp://lo:5555",        "ipc:///tmp/chuhe"};
    const char *open[] = {"tcp://*:5555",        "tcp://0.0.0.0:5555",
                          "tcp://[::]:5555",     "tcp://10.0.0.7:5555",
                          "tcp://eth0:5555",     "tcp://node7:5555",
                          "tcp://128.0.0.1:1",   "tcp://127.0.0.1.9:1",
                          "tcp://127.0.0.256:1", "pgm://eth0;239.192.1.1:5555",
                          "ws://127.0.0.1:80",   "inproc://chuhe"};
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if (!coord_endpoint_is_local(local[i]))
            fail_msg("%s should be local", local[i]);
    for (size_t i = 0; i < sizeof open / sizeof *open; i++)
        if (coord_endpoint_is_local(open[i]))
            fail_msg("%s should not be local", open[i]);

    CoordConfig c;
    CoordError err;
    coord_config_defaults(&c);
    assert_true(coord_config_check_network(&c, &err));
    assert_string_equal(c.bind, "tcp://127.0.0.1:5555");
    coord_config_defaults(&c);
    snprintf(c.bind, sizeof c.bind, "tcp://*:7000");
    assert_false(coord_config_check_network(&c, &err));
    assert_non_null(strstr(err.msg, "--bind tcp://*:7000: without keys"));
    assert_non_null(strstr(err.msg, "--open-network"));
    c.open_network = true;
    assert_true(coord_config_check_network(&c, &err));
    coord_config_defaults(&c);
    c.open_network = true;
    assert_true(coord_config_check_network(&c, &err));
    assert_string_equal(c.bind, "tcp://*:5555");
    coord_config_defaults(&c);
    snprintf(c.curve_secret, sizeof c.curve_secret, "c.key");
    assert_false(coord_config_check_network(&c, &err));
    assert_non_null(strstr(err.msg, "--curve-secret and --allow-keys go together"));
    snprintf(c.allow_keys, sizeof c.allow_keys, "allowed");
    snprintf(c.bind, sizeof c.bind, "tcp://0.0.0.0:7000");
    assert_true(coord_config_check_network(&c, &err));
}

/* Only transports a worker process reaches are bound; localhost is bound as 127.0.0.1
 * (ZeroMQ binds interfaces and addresses, not host names). */
static void test_bind_transports(void **state)
{
    (void)state;
    const char *refused[] = {"inproc://x", "pgm://eth0;239.192.1.1:5555", "udp://127.0.0.1:1",
                             "127.0.0.1:5555", "tcp:/127.0.0.1:5555"};
    CoordConfig c;
    CoordError err;
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        coord_config_defaults(&c);
        c.open_network = true;
        snprintf(c.bind, sizeof c.bind, "%s", refused[i]);
        if (coord_config_check_network(&c, &err))
            fail_msg("--bind %s should be refused", refused[i]);
        assert_non_null(strstr(err.msg, "give tcp://ADDR:PORT"));
        assert_non_null(strstr(err.msg, refused[i]));
    }
    coord_config_defaults(&c);
    snprintf(c.bind, sizeof c.bind, "tcp://localhost:5601");
    assert_true(coord_config_check_network(&c, &err));
    assert_string_equal(c.bind, "tcp://127.0.0.1:5601");
    coord_config_defaults(&c);
    snprintf(c.bind, sizeof c.bind, "ipc:///tmp/chuhe-x");
    assert_true(coord_config_check_network(&c, &err));
    assert_string_equal(c.bind, "ipc:///tmp/chuhe-x");
}

/* The bound coord_worker_message_max gives is the size of the longest GAME. */
static void test_worker_message_max(void **state)
{
    (void)state;
    static ProtoMsg m;
    static uint8_t buf[PROTO_MAX_MESSAGE];
    for (int plies = 0; plies <= 1000; plies += 100) {
        proto_init(&m, PROTO_GAME);
        GameRecord *r = &m.game.rec;
        memset(r->start_fen, 'r', PROTO_FEN_MAX);
        r->start_fen[PROTO_FEN_MAX] = '\0';
        r->nplies = plies;
        for (int i = 0; i < plies; i++)
            r->plies[i] = (RecordPly){.move = move_make(0, 9), .best = MOVE_NONE};
        r->outcome = OUTCOME_DRAW;
        r->reason = REASON_MOVE_LIMIT;
        ProtoError err;
        size_t len = proto_encode(&m, buf, sizeof buf, &err);
        if (!len)
            fail_msg("encode: %s", err.msg);
        int bound = coord_worker_message_max(plies);
        assert_true((int)len <= bound);
        if (plies >= 100)
            assert_int_equal(len, bound);
    }
    proto_init(&m, PROTO_ERROR);
    memset(m.error.text, 'e', PROTO_TEXT_MAX);
    ProtoError err;
    assert_true((int)proto_encode(&m, buf, sizeof buf, &err) <= coord_worker_message_max(0));

    /* --max-message below the run's longest game is refused */
    CoordConfig c;
    CoordGiven g;
    coord_config_defaults(&c);
    const char *argv[] = {"--max-message", "2000", "--max-plies", "200"};
    CoordError cerr;
    assert_true(coord_config_parse(&c, &g, 4, (char **)argv, &cerr));
    assert_false(coord_config_finish_new(&c, &g, &cerr));
    assert_non_null(strstr(cerr.msg, "--max-message 2000 is below"));
    c.max_plies = 100;
    assert_true(coord_config_finish_new(&c, &g, &cerr));
}

/* ---- per-worker limits -------------------------------------------------------------- */

static void test_rate_limit(void **state)
{
    (void)state;
    CoordConfig c;
    coord_config_defaults(&c);
    c.rate_limit = 10;
    c.rate_burst = 0; /* two seconds' worth: 20 */
    WorkerLimits l;
    coord_quota_init(&l, &c, 100.0);
    int admitted = 0;
    for (int i = 0; i < 50; i++)
        admitted += coord_quota_admit(&l, &c, 100.0) == ADMIT;
    assert_int_equal(admitted, 20);
    /* a run of drops: the first is flagged, then its end after a pause, with the count */
    uint64_t dropped;
    bool ignored;
    assert_false(coord_quota_drops_ended(&l, 100.5, &dropped, &ignored));
    assert_int_equal(coord_quota_admit(&l, &c, 100.5), ADMIT); /* 5 tokens came back */
    assert_false(coord_quota_drops_ended(&l, 100.9, &dropped, &ignored));
    assert_true(coord_quota_drops_ended(&l, 101.1, &dropped, &ignored));
    assert_int_equal(dropped, 30);
    assert_false(ignored);
    /* 10 a second go through for ever */
    coord_quota_init(&l, &c, 0);
    admitted = 0;
    for (int i = 0; i < 20 + 1000; i++)
        admitted += coord_quota_admit(&l, &c, i * 0.1) == ADMIT;
    assert_int_equal(admitted, 20 + 1000);

    /* flooding: 10 bursts' worth dropped without a pause, then everything is ignored */
    coord_quota_init(&l, &c, 0);
    LimitVerdict v = ADMIT;
    int n = 0, first = 0;
    while (v != DROP_FLOODING && n < 10000) {
        v = coord_quota_admit(&l, &c, 0.001 * n++);
        first += v == DROP_FIRST;
    }
    assert_int_equal(v, DROP_FLOODING);
    assert_int_equal(first, 1);
    assert_true(n >= 200 && n <= 230);
    assert_int_equal(coord_quota_admit(&l, &c, 30.0), DROP_IGNORED);
    assert_false(coord_quota_drops_ended(&l, 30.0, &dropped, &ignored));
    assert_true(coord_quota_drops_ended(&l, LIMITS_IGNORE_SECONDS + 1.0, &dropped, &ignored));
    assert_true(ignored);
    assert_true(dropped >= 200);
    assert_int_equal(coord_quota_admit(&l, &c, LIMITS_IGNORE_SECONDS + 1.0), ADMIT);

    c.rate_limit = 0; /* no limit */
    coord_quota_init(&l, &c, 0);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(coord_quota_admit(&l, &c, 0), ADMIT);
}

static void test_pairs_held(void **state)
{
    (void)state;
    CoordConfig c;
    coord_config_defaults(&c);
    WorkerLimits l;
    coord_quota_init(&l, &c, 0);
    coord_quota_hold(&l, 7);
    coord_quota_hold(&l, 7); /* the same WORK again */
    coord_quota_hold(&l, 9);
    assert_int_equal(coord_quota_held(&l), 2);
    coord_quota_acked(&l, 7, 0);
    coord_quota_acked(&l, 7, 0); /* a duplicate's ACK */
    assert_int_equal(coord_quota_held(&l), 2);
    coord_quota_acked(&l, 7, 1);
    assert_int_equal(coord_quota_held(&l), 1);
    coord_quota_acked(&l, 12, 0); /* a pair it never held (adopted after a restart) */
    coord_quota_acked(&l, 9, 5);
    assert_int_equal(coord_quota_held(&l), 1);
    coord_quota_release(&l, 9);
    assert_int_equal(coord_quota_held(&l), 0);
    for (uint64_t p = 0; p < COORD_MAX_INFLIGHT_CAP + 5; p++)
        coord_quota_hold(&l, p);
    assert_int_equal(coord_quota_held(&l), COORD_MAX_INFLIGHT_CAP);
    coord_quota_release_all(&l);
    assert_int_equal(coord_quota_held(&l), 0);
}

/* ---- fixtures ------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    return scratch_create("security");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keygen),
        cmocka_unit_test(test_key_files_refused),
        cmocka_unit_test(test_allow_list),
        cmocka_unit_test(test_allow_list_errors),
        cmocka_unit_test(test_loopback_rule),
        cmocka_unit_test(test_bind_transports),
        cmocka_unit_test(test_worker_message_max),
        cmocka_unit_test(test_rate_limit),
        cmocka_unit_test(test_pairs_held),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
