#include "textesc.h"

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

bool textesc_plain(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (is_control(*p))
            return false;
    return true;
}

size_t textesc_printable(char *buf, size_t cap, const char *s)
{
    static const char HEX[] = "0123456789abcdef";
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[4] = {'\\', 'x', HEX[*p >> 4], HEX[*p & 15]};
        const char *out = is_control(*p) ? esc : (const char *)p;
        for (int i = 0, n = is_control(*p) ? 4 : 1; i < n; i++, len++)
            if (len + 1 < cap)
                buf[len] = out[i];
    }
    if (cap > 0)
        buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

void textesc_gnuplot(FILE *g, const char *s)
{
    fputc('\'', g);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (is_control(*p))
            fprintf(g, "\\x%02x", *p);
        else if (*p == '\'')
            fputs("''", g);
        else
            fputc(*p, g);
    }
    fputc('\'', g);
}
