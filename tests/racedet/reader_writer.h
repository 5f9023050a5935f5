/* reader_writer.h: main() of a test with two threads, a reader and a
 * writer, that the includer defines first (static void *reader(void *sum),
 * static void *writer(void *unused)): the reader adds what it read to
 * *sum, which main prints after both ended as "NAME SUM" (EXPECT-STDOUT),
 * NAME the includer's RW_NAME.  The reader starts first. */
#ifndef READER_WRITER_H
#define READER_WRITER_H
#include <pthread.h>
#include <stdio.h>

int main(void) {
  long sum = 0;
  pthread_t w, r;
  pthread_create(&r, NULL, reader, &sum);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  printf(RW_NAME " %ld\n", sum);
  return 0;
}
#endif
