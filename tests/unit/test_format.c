/* test_format.c: the runtime's own formatter (dc_snprintf, encoder/common.c),
 * which formats every report and log line because the runtime may not call
 * the printf family it intercepts, gives what glibc's snprintf gives: the
 * same text, the same length returned, the same truncation, for every
 * conversion, flag, width, precision and length modifier it supports.
 * %n, which the runtime never uses, is refused: written out as text. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#include "check.h"

/* the odd formats are the point, and truncation is checked, not a mistake */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#endif

/* both formatters, into buffers of size cap, compared */
#define SAME(cap, ...)                                                                       \
  do {                                                                                       \
    char want[256], got[256];                                                                \
    memset(want, 'X', sizeof want), memset(got, 'X', sizeof got);                            \
    int w = snprintf(want, cap, __VA_ARGS__);                                                \
    int g = dc_snprintf(got, cap, __VA_ARGS__);                                              \
    CHECK(w == g && memcmp(want, got, sizeof want) == 0, "%s with cap %d: want %d '%.*s', got %d '%.*s'", \
          #__VA_ARGS__, (int)(cap), w, (int)(cap) ? (int)(cap) : 0, want, g,                 \
          (int)(cap) ? (int)(cap) : 0, got);                                                 \
  } while (0)
#define ALL(...)               \
  do {                         \
    SAME(256, __VA_ARGS__);    \
    SAME(5, __VA_ARGS__);      \
    SAME(1, __VA_ARGS__);      \
    SAME(0, __VA_ARGS__);      \
  } while (0)

int main(void) {
  ALL("plain text");
  ALL("%d %i %d %d", 0, -1, INT_MAX, INT_MIN);
  ALL("%u %x %X %o", 0u, 0xdeadbeefu, 0xdeadbeefu, 0777u);
  ALL("%ld %lu %lx", LONG_MIN, ULONG_MAX, 0x123456789abcdefUL);
  ALL("%lld %llu %llx", LLONG_MIN, ULLONG_MAX, 0xfedcba9876543210ULL);
  ALL("%zu %zd %jd %td %qd", (size_t)12345, (ssize_t)-5, (intmax_t)-77, (ptrdiff_t)99, 7LL);
  ALL("%hd %hu %hhd %hhu %hx", 70000, 70000, 300, 300, 0x12345);
  ALL("[%5d] [%-5d] [%05d] [%+d] [% d] [%+5d] [%-+5d]", 42, 42, 42, 42, 42, -42, 7);
  ALL("[%.3d] [%8.3d] [%-8.3d] [%08.3d] [%.0d] [%5.0d] [%.0x]", 7, -7, 7, 7, 0, 0, 0);
  ALL("[%#x] [%#X] [%#lx] [%#o] [%#o] [%#x] [%#10x] [%#010x] [%#.5o]", 255, 255, 0x7ffdUL, 8, 0, 0,
      1, 1, 8);
  ALL("[%s] [%10s] [%-10s] [%.2s] [%10.2s] [%.*s] [%*s] [%-*s]", "abc", "abc", "abc", "abc", "abc",
      3, "abcdef", 6, "ab", 6, "ab");
  ALL("[%*d] [%-*d] [%.*d] [%*.*d]", -6, 5, 6, 5, -1, 5, 7, 3, 5);
  ALL("[%c] [%3c] [%-3c] %%", 'x', 'y', 'z');
  ALL("[%p] [%p] [%20p] [%-20p]", (void *)0x7ffe1234UL, (void *)0, (void *)0x1000UL,
      (void *)0x1000UL);
  ALL("[%f] [%.2f] [%.0f] [%.0f] [%.0f] [%10.3f] [%-10.1f] [%+f] [%010.2f]", 3.14159, 2.675, 0.4,
      1.5, 99.5, -1.0005, 2.25, 1.0, -3.5);
  ALL("[%f] [%.3f] [%f] [%#.0f]", 0.0, 1e-9, 123456789.125, 3.0);
  ALL("[%.1f] [%.2f] [%.0f] [%.0f] [%.3f]", 0.25, 0.125, 2.5, 3.5, 1.0005);
  /* above 2^64, %f gives the leading digits and zeros: the length is right */
  char big[64];
  CHECK(dc_snprintf(big, sizeof big, "%.0f", 1e30) == 31 && big[0] == '1' && big[20] == '0',
        "1e30: %s", big);
  ALL("%s T%u%s%s%s", "thread", 3u, " '", "worker", "'");
  ALL("module %#lx %#lx %#lx %s\n", 0x400000UL, 0x401000UL, 0x40a000UL, "/bin/true");
  ALL("%-22s %-8d %-8s|", "history_size", 3, "\"\"");
  /* %n writes nothing anywhere: it is text, and consumes no argument */
  char t[32];
  CHECK(dc_snprintf(t, sizeof t, "a%nb%d", 5) == 5 && strcmp(t, "a%nb5") == 0, "%%n: %s", t);
  CHECK(dc_snprintf(t, sizeof t, "end %") == 5 && strcmp(t, "end %") == 0, "a last %%: %s", t);
  /* the value of %s with no string */
  ALL("[%s]", (char *)0);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
