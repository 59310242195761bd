#include "expect_text.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

void expect_text(const char *text, ...)
{
    va_list ap;
    va_start(ap, text);
    for (const char *want = va_arg(ap, const char *); want; want = va_arg(ap, const char *)) {
        if (text && strstr(text, want))
            continue;
        va_end(ap);
        /* on one line: a text line that looked like TAP would be counted as a result */
        char shown[2048];
        size_t n = 0;
        for (const char *p = text ? text : "(null)"; *p && n + 3 < sizeof shown; p++) {
            if (*p == '\n') {
                shown[n++] = '\\';
                shown[n++] = 'n';
            } else {
                shown[n++] = *p;
            }
        }
        shown[n] = '\0';
        fail_msg("\"%s\" is not in \"%s\"", want, shown);
    }
    va_end(ap);
}
