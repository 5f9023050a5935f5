/* fd_handoff.c: jobs handed to a worker through a pipe, an eventfd and a
 * socketpair: each write happens before the read that returns its bytes
 * (racedet/intercept_fd.c), so the job the worker gets is ordered after
 * main's writes to it.  Without fd happens-before every job is a false race.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: pipe 42 eventfd 43 socketpair 44
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

struct job {
  int input, output;
};
static int pipe_fds[2], sock_fds[2], efd;
static struct job *eventfd_job;

static void *worker(void *arg) {
  struct job *j;
  if (read(pipe_fds[0], &j, sizeof j) != sizeof j) return arg;
  j->output = j->input * 2; /* main wrote input before the write */
  eventfd_t v;
  if (eventfd_read(efd, &v) != 0) return arg;
  eventfd_job->output = eventfd_job->input + 1;
  if (recv(sock_fds[1], &j, sizeof j, 0) != sizeof j) return arg;
  j->output = j->input + 2;
  return arg;
}

int main(void) {
  if (pipe(pipe_fds) || socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds)) return 2;
  efd = eventfd(0, 0);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  struct job *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
  a->input = 21;
  if (write(pipe_fds[1], &a, sizeof a) != sizeof a) return 2;
  b->input = 42;
  eventfd_job = b;
  eventfd_write(efd, 1);
  c->input = 42;
  if (send(sock_fds[0], &c, sizeof c, 0) != sizeof c) return 2;
  pthread_join(t, 0);
  printf("pipe %d eventfd %d socketpair %d\n", a->output, b->output, c->output);
  return 0;
}
