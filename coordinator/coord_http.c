#include "coord_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "coord_json.h"
#include "coord_log.h"
#include "error.h"
#include "numparse.h"

enum {
    HTTP_MAX_CONNECTIONS = 64,
    HTTP_MAX_PER_IP = 16,
    HTTP_TIMEOUT_S = 30,
    CHARTJS_MAX = 8 << 20, /* bytes; the minified file is about 200 KB */
};

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
    h->daemon = MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET,
        (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_MAX_PER_IP,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S, MHD_OPTION_END);
    if (!h->daemon) {
        ERROR_SET(err, "--http %s: libmicrohttpd did not start", addr);
        close(fd);
        free(h->chartjs);
        free(h);
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
    MHD_stop_daemon((*h)->daemon); /* closes the listening socket too */
    free((*h)->chartjs);
    free(*h);
    *h = NULL;
}
