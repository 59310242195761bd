/*
 * The live page of a serving coordinator (--http ADDR:PORT), read-only:
 *
 *   /              the page (coordinator/coord_page.html, compiled in), which polls:
 *   /api/status    the latest status: the --json progress object (coord_live.h)
 *   /api/history   the chart points
 *   /chart.js      Debian's Chart.js (libjs-chart.js), read once at the start; nothing
 *                  is ever fetched from elsewhere
 *
 * libmicrohttpd serves from its own thread (MHD_USE_INTERNAL_POLLING_THREAD) and reads
 * nothing but the snapshot, so a slow or hostile client never holds up the game loop and
 * never reaches the run file; connection limits and per-request deadlines keep clients
 * that trickle bytes from holding it (coord_http.c). Like the ZeroMQ endpoint, the page binds a
 * loopback address only, unless --http-open is given: it tells anyone who reaches it how the run
 * goes, engines and hosts included.
 */
#ifndef CHUHE_COORD_HTTP_H
#define CHUHE_COORD_HTTP_H

#include <stdbool.h>

#include "coord_config.h"
#include "coord_live.h"

/* Where Debian's libjs-chart.js puts Chart.js. */
#define COORD_HTTP_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"

typedef struct CoordHttp CoordHttp;

/*
 * Binds addr ("127.0.0.1:8080", "[::1]:0", "localhost:0"; port 0 picks a free one) and
 * serves live until coord_http_stop. A non-loopback address is refused unless open.
 * NULL, with one line in err, when the address is bad, refused or cannot be bound, or
 * the server does not start. Called before any file is touched.
 */
CoordHttp *coord_http_start(const char *addr, bool open, CoordLive *live, CoordError *err);

/* Prints the page's address on stdout, "http http://ADDR:PORT/" (with json, the line
 * {"event":"http","url":"http://ADDR:PORT/"} instead), and logs it. */
void coord_http_announce(const CoordHttp *h, bool json);

/* Stops serving and closes the socket; *h becomes NULL (NULL is fine). */
void coord_http_stop(CoordHttp **h);

#endif
