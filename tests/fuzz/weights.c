/*
 * Fuzz harness for the weights-file reader (engine/weights.c).
 *
 * Input: the text of a weights file (a NUL ends it, as it ends the text that
 * weights_load hands to the parser). weights_parse must refuse it with a message naming
 * the source, or accept it; accepted weights must write out with weights_write and read
 * back to exactly the same values, and writing those again must give the same text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz-weights: %s\n", what);
    abort();
}

/* weights_write into a new string (freed by the caller). */
static char *write_text(const EvalParams *p, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        die("open_memstream failed");
    if (!weights_write(f, p))
        die("weights_write failed on a memory stream");
    if (fclose(f) != 0)
        die("closing the memory stream failed");
    return text;
}

static char names[EVAL_PARAM_NB][48];
static const char *sorted[EVAL_PARAM_NB];

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each name an accepted file gives is the name the writer uses for a parameter, so that
 * no two spellings stand for one parameter (and none for a different one). */
static void check_names(const uint8_t *data, size_t size)
{
    if (!sorted[0]) {
        for (int i = 0; i < EVAL_PARAM_NB; i++) {
            weights_param_name(i, names[i], sizeof names[i]);
            sorted[i] = names[i];
        }
        qsort(sorted, EVAL_PARAM_NB, sizeof sorted[0], compare_names);
    }
    char line[300];
    size_t i = 0;
    size = strnlen((const char *)data, size); /* the parser's text ends at a NUL */
    while (i < size) {
        size_t n = 0;
        while (i < size && data[i] != '\n') {
            if (n + 1 < sizeof line)
                line[n++] = (char)data[i];
            i++;
        }
        i++;
        line[n] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *save;
        const char *name = strtok_r(line, " \t\r", &save);
        if (name && !bsearch(&name, sorted, EVAL_PARAM_NB, sizeof sorted[0], compare_names)) {
            fprintf(stderr, "fuzz-weights: name '%s'\n", name);
            die("an accepted name is not the one the writer uses");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static EvalParams params, back, untouched;
    char *text = malloc(size + 1);
    if (!text)
        die("out of memory");
    memcpy(text, data, size);
    text[size] = '\0';

    WeightsError err = {{0}};
    memset(&params, 0x5a, sizeof params);
    untouched = params;
    bool ok = weights_parse(text, "fuzz.weights", &params, &err);
    free(text);
    if (!ok) {
        if (strncmp(err.msg, "fuzz.weights", 12) || !memchr(err.msg, '\0', sizeof err.msg))
            die("refused without a message naming the source");
        if (memcmp(&params, &untouched, sizeof params))
            die("a refused file changed the destination");
        return 0;
    }

    size_t len = 0, len2 = 0;
    char *written = write_text(&params, &len);
    check_names(data, size);
    if (strlen(written) != len)
        die("written weights hold a NUL byte");
    if (!weights_parse(written, "written.weights", &back, &err)) {
        fprintf(stderr, "fuzz-weights: %s\n", err.msg);
        die("written weights do not read back");
    }
    if (memcmp(&back, &params, sizeof back))
        die("weights changed on a round trip");
    char *again = write_text(&back, &len2);
    if (len2 != len || memcmp(again, written, len))
        die("writing the weights read back gives a different text");
    free(again);
    free(written);
    return 0;
}
