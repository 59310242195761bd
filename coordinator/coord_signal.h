/*
 * SIGINT, SIGTERM and SIGHUP reach the coordinator's poll loop through a self-pipe:
 * the handler only writes the signal number to a pipe whose read end the loop polls
 * next to its socket, so the loop itself flushes and closes the run file. SIGPIPE is
 * ignored: a closed terminal or log pipe must not kill a run.
 */
#ifndef CHUHE_COORD_SIGNAL_H
#define CHUHE_COORD_SIGNAL_H

/* Installs the handlers; returns the pipe's read end, to poll for input. */
int coord_signals_install(void);

/* The signal that arrived (read from the pipe), or 0 for none. */
int coord_signal_pending(void);

/* Restores the default actions and closes the pipe. */
void coord_signals_remove(void);

#endif
