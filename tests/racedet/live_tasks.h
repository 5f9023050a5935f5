/* live_tasks.h: the threads of this process the kernel still runs.  A
 * finished thread has gone from /proc/self/task once its exit (and ours:
 * thread_end.c) ran; the leak tests wait for that, since a thread still
 * running at exit is no leak. */
#include <dirent.h>
#include <unistd.h>

static int live_tasks(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

/* wait (up to 10 s) until at most n threads run */
static void wait_tasks(int n) {
  for (int tries = 0; live_tasks() > n && tries < 10000; tries++) usleep(1000);
}
