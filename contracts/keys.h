/*
 * CURVE keys of the coordinator/worker link: key pairs, key files and the
 * coordinator's list of allowed worker keys. Used by both programs.
 *
 * A key is 32 bytes written as 40 characters of Z85, as ZeroMQ prints it. Files:
 *
 *   NAME.key    the secret key, mode 0600, one key line:
 *                 # chuhe CURVE secret key NAME; its public key is in NAME.pub
 *                 <40 characters>
 *   NAME.pub    the public key, one key line:
 *                 <40 characters> # NAME
 *   allow-list  any number of public key lines, each with an optional "# name" that
 *               log lines use; blank lines and lines starting with '#' are ignored,
 *               so concatenated .pub files make one.
 *
 * Z85 uses '#' too (never as a key's first character): a name after a key follows a
 * blank. Every line is checked: a malformed line is an error
 * naming the file and the line. A
 * secret key file that group or others may read or write is refused, as ssh refuses
 * such private keys. Keys are compared in their canonical Z85 form (decoded and encoded
 * again).
 */
#ifndef CHUHE_KEYS_H
#define CHUHE_KEYS_H

#include <stdbool.h>
#include <stddef.h>

enum {
    KEYS_Z85_LEN = 40,   /* characters of a key, NUL excluded */
    KEYS_NAME_MAX = 63,  /* bytes of a key's name, NUL excluded */
    KEYS_LINE_MAX = 512, /* bytes of a line in a key file or allow-list */
};

typedef struct {
    char public_z85[KEYS_Z85_LEN + 1];
    char secret_z85[KEYS_Z85_LEN + 1];
} KeyPair;

/* One allowed key: its text, its name ("" for none) and its line in the file. */
typedef struct {
    char z85[KEYS_Z85_LEN + 1];
    char name[KEYS_NAME_MAX + 1];
    int line;
} AllowedKey;

/* The allowed worker keys, sorted by key for lookups. */
typedef struct {
    AllowedKey *keys;
    int count;
} AllowList;

typedef struct {
    char msg[1100];
} KeysError;

/* Whether this libzmq was built with CURVE (zmq_has("curve")). */
bool keys_curve_available(void);

/*
 * Makes a new key pair and writes BASENAME.key (mode 0600) and BASENAME.pub. Refuses to
 * overwrite either file; on failure neither file is left behind. The pair goes to *out.
 */
bool keys_generate(const char *basename, KeyPair *out, KeysError *err);

/* Reads a secret key file and derives its public key. */
bool keys_read_secret(const char *path, KeyPair *out, KeysError *err);

/* Reads a public key file (its one key line). */
bool keys_read_public(const char *path, char z85[KEYS_Z85_LEN + 1], KeysError *err);

/* Reads an allow-list into *out (freed with keys_allow_free); at least one key. */
bool keys_allow_load(const char *path, AllowList *out, KeysError *err);

/* The entry of a key (Z85 text), NULL when it is not listed. */
const AllowedKey *keys_allow_find(const AllowList *list, const char *z85);

void keys_allow_free(AllowList *list);

/* The Z85 text of a 32-byte key. */
void keys_encode(const unsigned char bytes[32], char z85[KEYS_Z85_LEN + 1]);

#endif
