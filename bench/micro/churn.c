/* churn.c MODE N: N rounds of making, using and destroying what a long
 * running program makes and destroys all the time, to see whether the
 * race detector's memory grows with each round.  Prints "churn MODE N
 * checksum".
 *   locks  an object with a mutex, a condition variable, an rwlock, a
 *          semaphore and a spinlock, taken under a global mutex and rwlock
 *          (each an edge of the lock-order graph), then destroyed and freed
 *   fds    a pipe and a socket pair with a byte through each, an open and
 *          an fopen of /dev/null, all closed again
 *   threads a thread, made once the last one was joined, that hands a
 *          value back through a mutex and a condition variable (a
 *          std::promise's shared state), then is joined */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct object {
  pthread_mutex_t m;
  pthread_cond_t c;
  pthread_rwlock_t rw;
  sem_t s;
  pthread_spinlock_t sp;
  long v;
} object;
static pthread_mutex_t global = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t global_rw = PTHREAD_RWLOCK_INITIALIZER;

static long locks_round(long i) {
  object *o = malloc(sizeof *o);
  if (!o) exit(1);
  pthread_mutex_init(&o->m, 0);
  pthread_cond_init(&o->c, 0);
  pthread_rwlock_init(&o->rw, 0);
  sem_init(&o->s, 0, 1);
  pthread_spin_init(&o->sp, 0);
  pthread_rwlock_rdlock(&global_rw);
  pthread_mutex_lock(&global);
  pthread_mutex_lock(&o->m);
  pthread_rwlock_wrlock(&o->rw);
  pthread_spin_lock(&o->sp);
  o->v = i;
  pthread_spin_unlock(&o->sp);
  pthread_rwlock_unlock(&o->rw);
  pthread_cond_signal(&o->c);
  pthread_mutex_unlock(&o->m);
  pthread_mutex_unlock(&global);
  pthread_rwlock_unlock(&global_rw);
  sem_wait(&o->s);
  sem_post(&o->s);
  const long v = o->v;
  pthread_spin_destroy(&o->sp);
  sem_destroy(&o->s);
  pthread_rwlock_destroy(&o->rw);
  pthread_cond_destroy(&o->c);
  pthread_mutex_destroy(&o->m);
  free(o);
  return v;
}

static long fds_round(long i) {
  int p[2], sv[2];
  char c = (char)i;
  if (pipe(p) || write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) exit(1);
  close(p[0]);
  close(p[1]);
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || write(sv[0], &c, 1) != 1 ||
      read(sv[1], &c, 1) != 1)
    exit(1);
  close(sv[0]);
  close(sv[1]);
  const int fd = open("/dev/null", O_RDONLY);
  if (fd < 0) exit(1);
  close(fd);
  FILE *f = fopen("/dev/null", "w");
  if (!f) exit(1);
  fprintf(f, "%ld", i);
  fclose(f);
  return c;
}

typedef struct promise {
  pthread_mutex_t m;
  pthread_cond_t c;
  int ready;
  long value;
} promise;

static void *keep_promise(void *arg) {
  promise *p = arg;
  pthread_mutex_lock(&p->m);
  p->value = p->value * 3 + 1;
  p->ready = 1;
  pthread_cond_signal(&p->c);
  pthread_mutex_unlock(&p->m);
  return 0;
}

static long threads_round(long i) {
  promise p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, i};
  pthread_t t;
  if (pthread_create(&t, 0, keep_promise, &p)) exit(1);
  pthread_mutex_lock(&p.m);
  while (!p.ready) pthread_cond_wait(&p.c, &p.m);
  const long v = p.value;
  pthread_mutex_unlock(&p.m);
  pthread_join(t, 0);
  pthread_cond_destroy(&p.c);
  pthread_mutex_destroy(&p.m);
  return v;
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    long (*round)(long);
  } modes[] = {{"locks", locks_round}, {"fds", fds_round}, {"threads", threads_round}};
  long (*round)(long) = 0;
  for (unsigned k = 0; argc == 3 && k < sizeof modes / sizeof *modes; k++)
    if (!strcmp(argv[1], modes[k].name)) round = modes[k].round;
  if (!round || atol(argv[2]) < 1) {
    fprintf(stderr, "usage: churn locks|fds|threads N\n");
    return 2;
  }
  const long n = atol(argv[2]);
  long sum = 0;
  for (long i = 0; i < n; i++) sum += round(i);
  printf("churn %s %ld %ld\n", argv[1], n, sum);
  return 0;
}
