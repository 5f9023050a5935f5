/* check.h: the unit tests' assertion: count, and on failure print where,
 * the condition and a printf-style explanation; main returns failed != 0. */
#ifndef DACCE_TEST_CHECK_H
#define DACCE_TEST_CHECK_H
#include <stdio.h>

static int passed, failed;
#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (cond) {                                              \
      passed++;                                              \
    } else {                                                 \
      failed++;                                              \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
    }                                                        \
  } while (0)

#endif
