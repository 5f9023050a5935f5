/* ro_map.h: a file of `size` bytes (each 8-byte word its index), mapped
 * read-only (PROT_READ, MAP_PRIVATE) with the program's mmap, so that the
 * runtime knows its pages read-only (racedet/intercept_mmap.c); the file
 * is unlinked at once.  Exits 2 when a step fails. */
#ifndef RO_MAP_H
#define RO_MAP_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static long *ro_map(size_t size) {
  char name[] = "/tmp/dacce_ro_map_XXXXXX";
  const int fd = mkstemp(name);
  if (fd < 0) {
    perror("mkstemp");
    exit(2);
  }
  unlink(name);
  static long chunk[8192];
  for (size_t at = 0; at < size; at += sizeof chunk) {
    for (size_t i = 0; i < sizeof chunk / sizeof *chunk; i++) chunk[i] = (long)(at / 8 + i);
    const size_t n = size - at < sizeof chunk ? size - at : sizeof chunk;
    if (write(fd, chunk, n) != (ssize_t)n) {
      perror("write");
      exit(2);
    }
  }
  long *p = mmap(0, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  close(fd);
  return p;
}
#endif
