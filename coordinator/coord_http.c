#include "coord_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "coord_json.h"
#include "coord_log.h"
#include "error.h"
#include "numparse.h"

enum {
    HTTP_MAX_CONNECTIONS = 64,
    HTTP_MAX_PER_IP = 16,
    HTTP_TIMEOUT_S = 30,  /* libmicrohttpd's own: no byte either way for this long */
    HTTP_REQUEST_S = 5,   /* a request's line and headers, however they trickle in */
    HTTP_RESPONSE_S = 30, /* its answer, however slowly it is read */
    /* Connections tracked: the limit, plus room for those cut and not yet closed. */
    HTTP_SLOTS = 2 * HTTP_MAX_CONNECTIONS,
    CHARTJS_MAX = 8 << 20, /* bytes; the minified file is about 200 KB */
};

/*
 * One client connection. libmicrohttpd's timeout counts idle time only, so a client
 * sending a header line every few seconds would hold its connection for ever, and 16
 * of them (its per-address limit) locked every viewer on the same machine out. Each
 * connection therefore has a deadline: HTTP_REQUEST_S for a whole request (from the
 * connection, or from the end of the previous answer on a kept-alive one) and
 * HTTP_RESPONSE_S for the answer. A thread of ours shuts down the socket of a connection
 * past its deadline (libmicrohttpd then reads its end and closes it), and a new
 * connection that would pass the total or the per-address limit takes the place of the
 * oldest one still waiting for its request, so a viewer always gets in.
 */
typedef struct {
    struct MHD_Connection *conn; /* NULL: a free slot */
    int fd;
    struct sockaddr_storage addr;
    double since; /* when the current request or answer started */
    bool busy;    /* the request is complete and being answered */
    bool cut;     /* shut down; libmicrohttpd has not closed it yet */
} HttpConn;

/* The page, compiled in from coordinator/coord_page.html (see the Makefile). */
static const char PAGE[] =
#include "coord_page.inc"
    ;

struct CoordHttp {
    struct MHD_Daemon *daemon;
    CoordLive *live;
    char *chartjs; /* NULL when libjs-chart.js is missing: the page then shows no charts */
    size_t chartjs_len;
    char url[COORD_ENDPOINT_MAX + 16];
    /* the connections, shared by libmicrohttpd's thread and the sweeper */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t sweeper;
    bool sweeping, stop;
    HttpConn conns[HTTP_SLOTS];
};

/* ---- the address ---- */

/* "HOST:PORT" or "[HOST]:PORT" into host and port. */
static bool split_addr(const char *addr, char *host, size_t size, long long *port, CoordError *err)
{
    const char *colon = strrchr(addr, ':');
    const char *h = addr;
    size_t n = colon ? (size_t)(colon - addr) : 0;
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close + 1 != colon)
            colon = NULL;
        h = addr + 1;
        n = close ? (size_t)(close - h) : 0;
    }
    if (!colon || n == 0 || n >= size)
        return ERROR_SET(err,
                         "--http '%s': give ADDR:PORT, e.g. 127.0.0.1:8080, localhost:8080 or "
                         "[::1]:0 (port 0 picks a free one)",
                         addr);
    memcpy(host, h, n);
    host[n] = '\0';
    char msg[256];
    if (!numparse_int("--http port", colon + 1, 0, 65535, port, msg, sizeof msg))
        return ERROR_SET(err, "%s", msg);
    return true;
}

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* A listening socket on addr; its URL goes to url. -1 with err set on failure. */
static int listen_on(const char *addr, bool open, char *url, size_t urlsize, CoordError *err)
{
    char host[COORD_ENDPOINT_MAX];
    long long port;
    if (!split_addr(addr, host, sizeof host, &port, err))
        return -1;
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char service[16];
    snprintf(service, sizeof service, "%lld", port);
    int rc = getaddrinfo(!strcmp(host, "*") ? NULL : host, service, &hints, &ai);
    if (rc != 0) {
        ERROR_SET(err, "--http %s: %s", addr, gai_strerror(rc));
        return -1;
    }
    if (!open && !is_loopback(ai->ai_addr)) {
        freeaddrinfo(ai);
        ERROR_SET(err,
                  "--http %s: the page binds only loopback addresses (127.0.0.1:PORT, "
                  "[::1]:PORT, localhost:PORT), since anyone who reaches it sees the run; "
                  "give --http-open to serve it on a trusted network",
                  addr);
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 32) != 0) {
        ERROR_SET(err, "--http %s: cannot bind: %s", addr, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char numeric[INET6_ADDRSTRLEN], portbuf[16];
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0 ||
        getnameinfo((struct sockaddr *)&ss, len, numeric, sizeof numeric, portbuf, sizeof portbuf,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        ERROR_SET(err, "--http %s: cannot read the bound address: %s", addr, strerror(errno));
        close(fd);
        return -1;
    }
    bool v6 = ss.ss_family == AF_INET6;
    snprintf(url, urlsize, "http://%s%s%s:%s/", v6 ? "[" : "", numeric, v6 ? "]" : "", portbuf);
    return fd;
}

/* Chart.js as Debian installs it, or NULL (and a log line) when it is not there. */
static char *read_chartjs(size_t *len)
{
    FILE *f = fopen(COORD_HTTP_CHARTJS, "rb");
    char *buf = f ? malloc(CHARTJS_MAX) : NULL;
    size_t n = buf ? fread(buf, 1, CHARTJS_MAX, f) : 0;
    bool ok = buf && !ferror(f) && n > 0 && n < CHARTJS_MAX;
    if (f)
        fclose(f);
    if (!ok) {
        free(buf);
        coord_log("note: %s is missing: the live page shows no charts (scripts/install-deps "
                  "installs libjs-chart.js)",
                  COORD_HTTP_CHARTJS);
        return NULL;
    }
    *len = n;
    return buf;
}

/* ---- connections: limits and deadlines ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool same_address(const struct sockaddr *a, const struct sockaddr_storage *b)
{
    if (a->sa_family != b->ss_family)
        return false;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->sa_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
    return false;
}

/* Shuts the connection down; libmicrohttpd sees the end and closes it. Lock held. */
static void cut(HttpConn *k)
{
    shutdown(k->fd, SHUT_RDWR);
    k->cut = true;
}

/* Cuts every connection past its deadline. Lock held. */
static void sweep(CoordHttp *h, double now)
{
    for (int i = 0; i < HTTP_SLOTS; i++) {
        HttpConn *k = &h->conns[i];
        if (k->conn && !k->cut && now - k->since > (k->busy ? HTTP_RESPONSE_S : HTTP_REQUEST_S))
            cut(k);
    }
}

/* Makes room for a connection from addr under a limit of max connections (from addr
 * only, or from anyone when addr is NULL): cuts the oldest one still waiting for its
 * request while the limit is reached. False when every one is being answered. */
static bool make_room(CoordHttp *h, const struct sockaddr *addr, int max)
{
    for (;;) {
        int n = 0;
        HttpConn *oldest = NULL;
        for (int i = 0; i < HTTP_SLOTS; i++) {
            HttpConn *k = &h->conns[i];
            if (!k->conn || k->cut || (addr && !same_address(addr, &k->addr)))
                continue;
            n++;
            if (!k->busy && (!oldest || k->since < oldest->since))
                oldest = k;
        }
        if (n < max)
            return true;
        if (!oldest)
            return false;
        cut(oldest);
    }
}

/* libmicrohttpd's accept policy: a new connection within the limits. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)len;
    CoordHttp *h = cls;
    pthread_mutex_lock(&h->lock);
    sweep(h, now_s());
    bool ok = make_room(h, addr, HTTP_MAX_PER_IP) && make_room(h, NULL, HTTP_MAX_CONNECTIONS);
    pthread_mutex_unlock(&h->lock);
    return ok ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode what)
{
    CoordHttp *h = cls;
    pthread_mutex_lock(&h->lock);
    HttpConn *k = *socket_context;
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *peer =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        for (int i = 0; !k && i < HTTP_SLOTS; i++)
            if (!h->conns[i].conn)
                k = &h->conns[i];
        if (k && fd) {
            memset(k, 0, sizeof *k);
            k->conn = c;
            k->fd = fd->connect_fd;
            k->since = now_s();
            if (peer && peer->client_addr)
                memcpy(&k->addr, peer->client_addr,
                       peer->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                                : sizeof(struct sockaddr_in));
            *socket_context = k;
        } else if (fd) {
            shutdown(fd->connect_fd, SHUT_RDWR); /* more than libmicrohttpd's own limit */
        }
    } else if (k) {
        k->conn = NULL;
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&h->lock);
}

/* The connection's slot, NULL when it has none. */
static HttpConn *slot_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* A request was answered (or given up): a kept-alive connection's next request has its
 * own deadline. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)req_cls;
    (void)toe;
    CoordHttp *h = cls;
    pthread_mutex_lock(&h->lock);
    HttpConn *k = slot_of(c);
    if (k) {
        k->busy = false;
        k->since = now_s();
    }
    pthread_mutex_unlock(&h->lock);
}

static void *sweeper(void *arg)
{
    CoordHttp *h = arg;
    pthread_mutex_lock(&h->lock);
    while (!h->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) {
            until.tv_sec++;
            until.tv_nsec -= 1000 * 1000 * 1000;
        }
        pthread_cond_timedwait(&h->wake, &h->lock, &until);
        sweep(h, now_s());
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* ---- serving (libmicrohttpd's thread) ---- */

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type,
                               const void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free((void *)body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; img-src 'self' data:");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    return respond(c, status, "text/plain; charset=utf-8", text, strlen(text),
                   MHD_RESPMEM_PERSISTENT);
}

/* A snapshot copy (malloc'ed), handed to libmicrohttpd to free. */
static enum MHD_Result respond_json(struct MHD_Connection *c, char *json, size_t len)
{
    if (!json)
        return respond_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
    return respond(c, MHD_HTTP_OK, "application/json", json, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **req_cls)
{
    (void)version;
    (void)upload_data;
    (void)req_cls;
    CoordHttp *h = cls;
    *upload_size = 0; /* a body is ignored */
    pthread_mutex_lock(&h->lock);
    HttpConn *k = slot_of(c);
    if (k && !k->busy) {
        k->busy = true; /* the answer's deadline starts */
        k->since = now_s();
    }
    pthread_mutex_unlock(&h->lock);
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return respond_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read-only: GET or HEAD\n");
    size_t len = 0;
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return respond(c, MHD_HTTP_OK, "text/html; charset=utf-8", PAGE, sizeof PAGE - 1,
                       MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/api/status")) {
        char *json = coord_live_status(h->live, &len);
        return respond_json(c, json, len);
    }
    if (!strcmp(url, "/api/history")) {
        char *json = coord_live_history(h->live, &len);
        return respond_json(c, json, len);
    }
    if (!strcmp(url, "/chart.js") && h->chartjs)
        return respond(c, MHD_HTTP_OK, "text/javascript; charset=utf-8", h->chartjs, h->chartjs_len,
                       MHD_RESPMEM_PERSISTENT);
    return respond_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

/* ---- start and stop ---- */

CoordHttp *coord_http_start(const char *addr, bool open, CoordLive *live, CoordError *err)
{
    CoordHttp *h = calloc(1, sizeof *h);
    if (!h)
        COORD_FATAL("out of memory");
    h->live = live;
    int fd = listen_on(addr, open, h->url, sizeof h->url, err);
    if (fd < 0) {
        free(h);
        return NULL;
    }
    h->chartjs = read_chartjs(&h->chartjs_len);
    if (pthread_mutex_init(&h->lock, NULL) != 0 || pthread_cond_init(&h->wake, NULL) != 0)
        COORD_FATAL("cannot make the live page's lock");
    h->sweeping = pthread_create(&h->sweeper, NULL, sweeper, h) == 0;
    /* the limits are ours (on_accept); libmicrohttpd's only bounds the table */
    h->daemon = MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD, 0, on_accept, h, on_request, h, MHD_OPTION_LISTEN_SOCKET,
        (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_SLOTS,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION,
        on_connection, h, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
    if (!h->daemon || !h->sweeping) {
        ERROR_SET(err, "--http %s: libmicrohttpd did not start", addr);
        if (!h->daemon)
            close(fd);
        coord_http_stop(&h);
        return NULL;
    }
    return h;
}

void coord_http_announce(const CoordHttp *h, bool json)
{
    if (json) {
        char line[sizeof h->url * 2 + 64];
        size_t n = 0;
        coord_json_append(line, sizeof line, &n, "{\"event\":\"http\",\"url\":");
        coord_json_string(line, sizeof line, &n, h->url);
        printf("%s}\n", line);
    } else {
        printf("http %s\n", h->url);
    }
    fflush(stdout);
    coord_log("live page on %s", h->url);
}

void coord_http_stop(CoordHttp **h)
{
    if (!*h)
        return;
    if ((*h)->daemon)
        MHD_stop_daemon((*h)->daemon); /* closes the listening socket too */
    if ((*h)->sweeping) {
        pthread_mutex_lock(&(*h)->lock);
        (*h)->stop = true;
        pthread_cond_signal(&(*h)->wake);
        pthread_mutex_unlock(&(*h)->lock);
        pthread_join((*h)->sweeper, NULL);
    }
    pthread_cond_destroy(&(*h)->wake);
    pthread_mutex_destroy(&(*h)->lock);
    free((*h)->chartjs);
    free(*h);
    *h = NULL;
}
