/* fd_key_closed_inside.c: a descriptor number closed inside libc, where no
 * close interceptor sees it, then handed out again for another file.  The
 * runtime keeps each number's sync key (the file it names) from its first
 * use until it is closed (racedet/intercept_fd.c); a key kept past such a
 * close would be another file's, and a hand-over through the new file
 * would then order nothing.  Three rounds, one per way libc closes it:
 *   0: fclose of a stream whose descriptor the program wrote through;
 *   1: closedir of a directory whose descriptor the program read;
 *   2: close_range over the number.
 * In each round main gives the number (unseen: fcntl's F_DUPFD) to the
 * write end of a pipe, and a thread writes `data` then a byte into it;
 * main reads the byte from the read end, then `data`: ordered by the pipe,
 * no race.  With a key kept past the close, each round's read of `data`
 * races with the thread's write (one report: the same stacks each round).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: closed inside 3
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int wfd;
static int data[3];
static int round_no;

static void *hand_over(void *arg) {
  (void)arg;
  data[round_no] = 40 + round_no;
  if (write(wfd, "x", 1) != 1) abort();
  return 0;
}

/* a descriptor of the round's kind, used once so that its key is kept;
 * returns its number after closing it the round's way */
static int used_then_closed_inside(int round) {
  int fd = -1;
  char c;
  if (round == 0) {
    FILE *f = tmpfile();
    if (!f) abort();
    fd = fileno(f);
    if (write(fd, "y", 1) != 1) abort();
    fclose(f);
  } else if (round == 1) {
    DIR *d = opendir("/");
    if (!d) abort();
    fd = dirfd(d);
    if (read(fd, &c, 1) >= 0) abort(); /* EISDIR: a use all the same */
    closedir(d);
  } else {
    fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || write(fd, "z", 1) != 1) abort();
    if (close_range((unsigned)fd, (unsigned)fd, 0)) abort();
  }
  return fd;
}

int main(void) {
  int p[2];
  if (pipe(p)) return 1;
  int ok = 0;
  for (round_no = 0; round_no < 3; round_no++) {
    const int n = used_then_closed_inside(round_no);
    wfd = fcntl(p[1], F_DUPFD, n);
    if (wfd != n) {
      fprintf(stderr, "round %d: got %d, not %d\n", round_no, wfd, n);
      return 1;
    }
    pthread_t t;
    pthread_create(&t, 0, hand_over, 0);
    char c;
    if (read(p[0], &c, 1) != 1) return 1;
    ok += data[round_no] == 40 + round_no; /* ordered by the pipe */
    pthread_join(t, 0);
    close(wfd);
  }
  printf("closed inside %d\n", ok);
  return 0;
}
