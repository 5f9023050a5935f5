/* argon2_driver.c: the Argon2 password hash (the reference implementation's
 * SSE2 code, as node's argon2 package builds it on x86-64) as a workload.
 *
 * bench/run.py builds this driver together with the library's own sources
 * (fetched from npm at run time, never committed): argon2.c, core.c,
 * encoding.c, thread.c, blake2/blake2b.c and opt.c.  The driver hashes a
 * fixed password and salt with Argon2id, 3 passes over `size` KiB of memory
 * in 4 lanes, which the library fills in parallel: each of the 4 slices of a
 * pass starts one thread per lane (pthread_create) and joins them, and every
 * block it computes reads an earlier block of any lane (1 KiB, through
 * 16-byte SSE loads and stores).  Then it hashes the same input again with
 * argon2id_hash_encoded and checks the encoded string with argon2id_verify.
 * It prints the raw hash: it depends on the parameters only, so the line is
 * the same in every build.
 *
 * usage: argon2_driver [size]    memory in KiB (at least 32); exit 1 on any
 *                                error
 *        argon2_driver --version prints the Argon2 version (1.3, from
 *                                ARGON2_VERSION_NUMBER, 0x13)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argon2.h"

#define PASSES 3
#define LANES 4
#define HASHLEN 32

static const char password[] = "correct horse battery staple";
static const char salt[] = "dacce-race bench salt";

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--version")) {
    printf("%d.%d\n", ARGON2_VERSION_NUMBER >> 4, ARGON2_VERSION_NUMBER & 15);
    return 0;
  }
  const long kib = argc > 1 ? strtol(argv[1], 0, 10) : 65536;
  if (kib < 8 * LANES || kib > (1L << 22)) {
    fprintf(stderr, "argon2_driver: size must be 32-4194304 KiB\n");
    return 1;
  }
  uint8_t hash[HASHLEN];
  int rc = argon2id_hash_raw(PASSES, (uint32_t)kib, LANES, password, strlen(password), salt,
                             strlen(salt), hash, sizeof hash);
  if (rc != ARGON2_OK) {
    fprintf(stderr, "argon2_driver: %s\n", argon2_error_message(rc));
    return 1;
  }
  char encoded[256];
  rc = argon2id_hash_encoded(PASSES, (uint32_t)kib, LANES, password, strlen(password), salt,
                             strlen(salt), HASHLEN, encoded, sizeof encoded);
  if (rc != ARGON2_OK || (rc = argon2id_verify(encoded, password, strlen(password))) != ARGON2_OK) {
    fprintf(stderr, "argon2_driver: %s\n", argon2_error_message(rc));
    return 1;
  }
  printf("argon2id t %d m %ld p %d hash ", PASSES, kib, LANES);
  for (int i = 0; i < HASHLEN; i++) printf("%02x", hash[i]);
  printf("\n");
  return 0;
}
