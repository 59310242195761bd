/*
 * Fuzz harness for the wire-message decoder (contracts/protocol.c).
 *
 * Input: one frame, as a ZeroMQ message would bring it. proto_decode must refuse it with
 * a message or accept it; an accepted message must pass proto_check, re-encode to exactly
 * the input (the encoding is canonical), and decode again to a message that encodes the
 * same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/protocol.h"

static void die(const char *what, const ProtoMsg *m)
{
    fprintf(stderr, "fuzz-wire: %s (type %s)\n", what, m ? proto_type_name(m->type) : "-");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Large (a GAME holds a whole record): static, as the coordinator keeps one. */
    static ProtoMsg msg, again;
    static uint8_t frame[PROTO_MAX_MESSAGE], frame2[PROTO_MAX_MESSAGE];
    ProtoError err = {{0}};

    if (!proto_decode(data, size, &msg, &err)) {
        if (!err.msg[0] || !memchr(err.msg, '\0', sizeof err.msg))
            die("refused without a message", NULL);
        return 0;
    }
    if (!proto_check(&msg, &err))
        die("decoded message fails proto_check", &msg);
    size_t n = proto_encode(&msg, frame, sizeof frame, &err);
    if (n == 0)
        die("decoded message does not encode", &msg);
    if (n != size || memcmp(frame, data, n))
        die("re-encoding differs from the frame", &msg);
    if (!proto_decode(frame, n, &again, &err))
        die("re-encoded frame does not decode", &msg);
    if (again.type != msg.type)
        die("type changed on a round trip", &msg);
    size_t n2 = proto_encode(&again, frame2, sizeof frame2, &err);
    if (n2 != n || memcmp(frame, frame2, n))
        die("second round trip differs", &msg);
    return 0;
}
