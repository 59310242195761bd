/*
 * Text checks for the tests: the lines a report, a JSON object or a message must hold.
 */
#ifndef CHUHE_TESTS_EXPECT_TEXT_H
#define CHUHE_TESTS_EXPECT_TEXT_H

/* Fails the test unless text holds each string that follows, up to a NULL; the message
 * names the first one missing and quotes the text. */
void expect_text(const char *text, ...) __attribute__((sentinel));

#endif
