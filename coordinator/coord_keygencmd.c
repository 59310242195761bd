#include "coord_keygencmd.h"

#include <stdio.h>
#include <string.h>

#include "contracts/keys.h"
#include "coord_config.h"
#include "coord_subcmd.h"
#include "contracts/outpath.h"

static const CliOpt OPTS[] = {COORD_SUBCMD_HELP};
static const CoordSubcmd KEYGEN = COORD_SUBCMD_ONE("keygen", "keygen NAME", "NAME", OPTS, NULL);

int coord_keygencmd_run(int argc, char **argv)
{
    int status;
    const char *name = coord_subcmd_word(&KEYGEN, argc, argv, &status);
    if (!name)
        return status;
    /* key files are never written over (keys_generate refuses an existing one): here
     * the rest of the rule for outputs, with its clearer words */
    for (int i = 0; i < 2; i++) {
        char path[COORD_PATH_MAX], msg[COORD_PATH_MAX * 2 + 200];
        snprintf(path, sizeof path, "%s%s", name, i ? ".pub" : ".key");
        if (!outpath_check("keygen", path, OUTPATH_REPLACE, true, NULL, 0, msg, sizeof msg)) {
            fprintf(stderr, "chuhe-coordinator %s\n", msg);
            return 2;
        }
    }
    KeyPair pair;
    KeysError err;
    if (!keys_generate(name, &pair, &err))
        return coord_subcmd_fail(&KEYGEN, 1, "%s", err.msg);
    printf("wrote %s.key (secret key, mode 0600) and %s.pub (public key %s)\n", name, name,
           pair.public_z85);
    memset(&pair, 0, sizeof pair);
    return 0;
}
