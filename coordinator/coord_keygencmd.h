/*
 * `chuhe-coordinator keygen NAME`: a CURVE key pair for the coordinator or a worker,
 * NAME.key (secret, mode 0600) and NAME.pub; neither is ever written over. Returns the
 * process exit status.
 */
#ifndef CHUHE_COORD_KEYGENCMD_H
#define CHUHE_COORD_KEYGENCMD_H

/* argv: what follows "keygen". */
int coord_keygencmd_run(int argc, char **argv);

#endif
