/* bin/chuhe-engine: UCI on stdin/stdout, or the command given on the command line
 * (e.g. `chuhe-engine go perft 5`, `chuhe-engine bench`), run once: its exit status is
 * then 0, 1 when the command failed (or its output could not be written), 2 when it was
 * malformed (see UciStatus). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outpath.h"
#include "uci.h"

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    Uci uci;
    if (!uci_init(&uci, stdout)) {
        fprintf(stderr, "chuhe-engine: out of memory\n");
        return 1;
    }
    if (argc > 1) {
        size_t len = 1;
        for (int i = 1; i < argc; i++)
            len += strlen(argv[i]) + 1;
        char *line = calloc(len, 1);
        if (!line) {
            fprintf(stderr, "chuhe-engine: out of memory\n");
            return 1;
        }
        for (int i = 1; i < argc; i++) {
            strcat(line, argv[i]);
            if (i + 1 < argc)
                strcat(line, " ");
        }
        UciStatus status = uci_command(&uci, line);
        free(line);
        uci_finish(&uci, true);
        return outpath_finish_stdout("chuhe-engine", (int)status);
    } else {
        uci_loop(&uci, stdin);
        uci_finish(&uci, false);
    }
    return outpath_finish_stdout("chuhe-engine", 0);
}
