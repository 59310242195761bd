#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "textesc.h"
#include "timeman.h"

#define NOT_INSTALLED "gnuplot is not installed (scripts/install-deps installs gnuplot-nox)"

enum { COMPLAINT_MAX = 4096 }; /* the end of gnuplot's standard error kept for the message */

bool plot_available(void)
{
    const char *path = getenv("PATH");
    char dir[4096];
    for (const char *p = path ? path : ""; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && len + sizeof "/gnuplot" < sizeof dir) {
            memcpy(dir, p, len);
            memcpy(dir + len, "/gnuplot", sizeof "/gnuplot");
            if (access(dir, X_OK) == 0)
                return true;
        }
        p += len + (end ? 1 : 0);
    }
    return false;
}

/* The script in memory: the terminal, the output, then the caller's part. NULL when out
 * of memory. */
static char *script_text(const PlotPicture *p, PlotScript script, const void *ctx, size_t *len)
{
    char *text = NULL;
    FILE *g = open_memstream(&text, len);
    if (!g)
        return NULL;
    fprintf(g, "set terminal png size %d,%d", p->width, p->height);
    if (p->font) {
        fprintf(g, " font ");
        textesc_gnuplot(g, p->font);
    }
    fprintf(g, "\nset output ");
    textesc_gnuplot(g, p->png);
    fputc('\n', g);
    script(g, ctx);
    bool ok = !ferror(g);
    if (fclose(g) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* gnuplot's last line that says something (not blank, not the caret under the script's
 * text), printable and without its indentation; "" when there is none. */
static void last_line(const char *text, size_t len, char *out, size_t size)
{
    out[0] = '\0';
    size_t end = len;
    while (end > 0) {
        size_t start = end;
        while (start > 0 && text[start - 1] != '\n')
            start--;
        size_t a = start;
        while (a < end && (text[a] == ' ' || text[a] == '\t' || text[a] == '^' || text[a] == '\r'))
            a++;
        if (a < end) {
            char line[COMPLAINT_MAX];
            snprintf(line, sizeof line, "%.*s", (int)(end - a), text + a);
            textesc_printable(out, size, line);
            return;
        }
        end = start ? start - 1 : 0;
    }
}

/* gnuplot with stdin on a socket (a send to a gnuplot that has gone fails with EPIPE
 * instead of raising SIGPIPE), stdout to /dev/null, stderr on a pipe. */
static pid_t start(int *in, int *complaint)
{
    int sv[2], er[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    if (pipe(er) != 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(sv[1], 0) < 0 || dup2(null, 1) < 0 || dup2(er[1], 2) < 0)
            _exit(126);
        char *argv[] = {"gnuplot", NULL};
        execvp(argv[0], argv);
        _exit(127);
    }
    close(sv[1]);
    close(er[1]);
    fcntl(er[0], F_SETFD, FD_CLOEXEC);
    if (pid < 0) {
        close(sv[0]);
        close(er[0]);
        return -1;
    }
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    fcntl(er[0], F_SETFL, O_NONBLOCK);
    *in = sv[0];
    *complaint = er[0];
    return pid;
}

/* Sends the script and keeps the end of what gnuplot complains, until gnuplot closes
 * its standard error (it has ended) or the deadline; false at the deadline. */
static bool converse(int in, int er, const char *script, size_t len, int64_t deadline, char *kept,
                     size_t *nkept)
{
    size_t sent = 0;
    bool in_time = true;
    for (;;) {
        struct pollfd p[2] = {{er, POLLIN, 0}, {in, POLLOUT, 0}};
        int64_t left = deadline - time_now_ms();
        if (left <= 0) {
            in_time = false;
            break;
        }
        int r = poll(p, in >= 0 ? 2 : 1, (int)(left < INT32_MAX ? left : INT32_MAX));
        if (r < 0 && errno != EINTR)
            break;
        if (in >= 0 && p[1].revents) {
            ssize_t w = send(in, script + sent, len - sent, MSG_NOSIGNAL);
            if (w > 0)
                sent += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == len) {
                close(in); /* all sent, or gnuplot reads no more */
                in = -1;
            }
        }
        if (p[0].revents) {
            char buf[1024];
            ssize_t k = read(er, buf, sizeof buf);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
                break;
            size_t n = k > 0 ? (size_t)k : 0; /* below COMPLAINT_MAX */
            if (*nkept + n > COMPLAINT_MAX) {
                size_t drop = *nkept + n - COMPLAINT_MAX;
                memmove(kept, kept + drop, *nkept - drop);
                *nkept -= drop;
            }
            memcpy(kept + *nkept, buf, n);
            *nkept += n;
        }
    }
    if (in >= 0)
        close(in);
    return in_time;
}

bool plot_draw(const PlotPicture *p, PlotScript script, const void *ctx, char *err, size_t size)
{
    if (!textesc_plain(p->png)) {
        char shown[1024];
        textesc_printable(shown, sizeof shown, p->png);
        return error_set(err, size, "%s: a path with a control character is not given to gnuplot",
                         shown);
    }
    if (!plot_available())
        return error_set(err, size, NOT_INSTALLED);
    size_t len;
    char *text = script_text(p, script, ctx, &len);
    if (!text)
        return error_set(err, size, "out of memory for the gnuplot script of %s", p->png);
    int in, er;
    pid_t pid = start(&in, &er);
    if (pid < 0) {
        int e = errno;
        free(text);
        return error_set(err, size, "cannot start gnuplot: %s", strerror(e));
    }
    int seconds = p->seconds > 0 ? p->seconds : PLOT_SECONDS;
    char kept[COMPLAINT_MAX];
    size_t nkept = 0;
    bool in_time =
        converse(in, er, text, len, time_now_ms() + 1000 * (int64_t)seconds, kept, &nkept);
    free(text);
    close(er);
    if (!in_time)
        kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return error_set(err, size, "gnuplot drawing %s: %s", p->png, strerror(errno));
    if (!in_time)
        return error_set(err, size, "gnuplot did not finish %s within %d s: stopped", p->png,
                         seconds);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return true;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return error_set(err, size, NOT_INSTALLED);
    char line[512];
    last_line(kept, nkept, line, sizeof line);
    if (line[0])
        return error_set(err, size, "gnuplot failed to draw %s: %s", p->png, line);
    if (WIFSIGNALED(st))
        return error_set(err, size, "gnuplot failed to draw %s: killed by signal %d", p->png,
                         WTERMSIG(st));
    return error_set(err, size, "gnuplot failed to draw %s: exit status %d", p->png,
                     WEXITSTATUS(st));
}
