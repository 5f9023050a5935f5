/* zstd_driver.c: zstd's multithreaded streaming compressor as a workload.
 *
 * bench/run.py builds this driver together with zstd's own lib/ sources
 * (fetched from npm at run time, never committed; -DZSTD_MULTITHREAD, so the
 * compressor runs its jobs in zstd's pthread pool).  The driver generates
 * `size` bytes of deterministic, text-like input (words drawn with a skewed
 * distribution from a pseudo-random vocabulary, some numbers, line breaks),
 * compresses it once per level with a ZSTD_CCtx in streaming mode
 * (ZSTD_compressStream2, 128 KiB of input per call, NB_WORKERS workers,
 * 512 KiB jobs), decompresses every frame with a ZSTD_DCtx and compares the
 * result with the input.  It prints the compressed sizes and a checksum of
 * the compressed frames: zstd's output depends on the parameters only, not on
 * the scheduling of its workers, so the line is the same in every build.
 *
 * usage: zstd_driver [size]    exit 1 on any error or mismatch
 *        zstd_driver --version prints ZSTD_versionString()
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zstd.h"

#define NB_WORKERS 4
#define JOB_SIZE (512 * 1024)
#define CHUNK (128 * 1024)
#define VOCAB 4096

static const int levels[] = {1, 3, 5};
#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_rand(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static void generate(unsigned char *buf, size_t size) {
  static char words[VOCAB][12];
  static unsigned char lens[VOCAB];
  for (int i = 0; i < VOCAB; i++) {
    int n = 2 + (int)(next_rand() % 9);
    for (int k = 0; k < n; k++) words[i][k] = (char)('a' + next_rand() % 26);
    lens[i] = (unsigned char)n;
  }
  size_t pos = 0;
  int col = 0;
  while (pos < size) {
    uint64_t r = next_rand();
    char tmp[32];
    const char *w;
    size_t n;
    if ((r & 31) == 0) { /* a number now and then */
      n = (size_t)snprintf(tmp, sizeof tmp, "%u", (unsigned)(r >> 40) % 100000u);
      w = tmp;
    } else { /* skewed towards the start of the vocabulary */
      uint64_t x = (r >> 8) % VOCAB;
      size_t idx = (size_t)(x * x / VOCAB * ((r >> 32) % VOCAB) / VOCAB);
      w = words[idx];
      n = lens[idx];
    }
    for (size_t k = 0; k < n && pos < size; k++) buf[pos++] = (unsigned char)w[k];
    col += (int)n + 1;
    if (pos < size) buf[pos++] = col > 72 ? '\n' : ' ';
    if (col > 72) col = 0;
  }
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

#define CHECK(call)                                                                \
  do {                                                                             \
    size_t const r_ = (call);                                                      \
    if (ZSTD_isError(r_)) {                                                        \
      fprintf(stderr, "zstd_driver: %s: %s\n", #call, ZSTD_getErrorName(r_));       \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* one frame at `level`, fed CHUNK bytes at a time; returns its size */
static size_t compress(ZSTD_CCtx *cctx, int level, const unsigned char *src, size_t size,
                       unsigned char *dst, size_t cap) {
  CHECK(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters));
  CHECK(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level));
  CHECK(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1));
  CHECK(ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, NB_WORKERS));
  CHECK(ZSTD_CCtx_setParameter(cctx, ZSTD_c_jobSize, JOB_SIZE));
  CHECK(ZSTD_CCtx_setPledgedSrcSize(cctx, size));
  ZSTD_outBuffer out = {dst, cap, 0};
  for (size_t off = 0; off < size; off += CHUNK) {
    size_t n = size - off < CHUNK ? size - off : CHUNK;
    ZSTD_inBuffer in = {src + off, n, 0};
    while (in.pos < in.size) CHECK(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue));
  }
  ZSTD_inBuffer none = {NULL, 0, 0};
  size_t left;
  do {
    left = ZSTD_compressStream2(cctx, &out, &none, ZSTD_e_end);
    CHECK(left);
  } while (left != 0);
  return out.pos;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--version")) {
    printf("%s\n", ZSTD_versionString());
    return 0;
  }
  size_t size = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
  if (size == 0) {
    fprintf(stderr, "usage: zstd_driver [size]\n");
    return 2;
  }
  if (ZSTD_versionNumber() != ZSTD_VERSION_NUMBER) {
    fprintf(stderr, "zstd_driver: header %d, library %u\n", ZSTD_VERSION_NUMBER,
            ZSTD_versionNumber());
    return 1;
  }
  size_t cap = ZSTD_compressBound(size);
  unsigned char *src = malloc(size), *dst = malloc(cap), *back = malloc(size);
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  ZSTD_DCtx *dctx = ZSTD_createDCtx();
  if (!src || !dst || !back || !cctx || !dctx) {
    fprintf(stderr, "zstd_driver: out of memory\n");
    return 1;
  }
  generate(src, size);

  uint64_t sum = 0xcbf29ce484222325u;
  size_t csize[NLEVELS];
  for (int l = 0; l < NLEVELS; l++) {
    csize[l] = compress(cctx, levels[l], src, size, dst, cap);
    sum = fnv1a(sum, dst, csize[l]);
    unsigned long long fcs = ZSTD_getFrameContentSize(dst, csize[l]);
    if (fcs != size) {
      fprintf(stderr, "zstd_driver: level %d: frame content size %llu, expected %zu\n",
              levels[l], fcs, size);
      return 1;
    }
    memset(back, 0, size);
    size_t n = ZSTD_decompressDCtx(dctx, back, size, dst, csize[l]);
    CHECK(n);
    if (n != size || memcmp(back, src, size) != 0) {
      fprintf(stderr, "zstd_driver: level %d: round trip differs (%zu of %zu bytes back)\n",
              levels[l], n, size);
      return 1;
    }
  }
  printf("zstd size %zu workers %d", size, NB_WORKERS);
  for (int l = 0; l < NLEVELS; l++) printf(" L%d %zu", levels[l], csize[l]);
  printf(" checksum %016llx\n", (unsigned long long)sum);
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  free(src);
  free(dst);
  free(back);
  return 0;
}
