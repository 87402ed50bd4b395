// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: a seat changes hands.  The old session holds the test device
 * the ways a real program holds a sound or input device (a blocked read,
 * a poller, a shared mapping, an exclusive claim, a copy in a child); the
 * session manager runs revoke(1), which calls revokeat(2); the new
 * session gets the device.
 * Then the same with a uinput keyboard and the snd-dummy PCM, the session
 * manager revoking every node of /dev/input and /dev/snd, as logind would.
 */

#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "revoke_util.h"
#include "input_util.h"
#include "sound_util.h"

static sigjmp_buf jmp;

static void on_sigbus(int sig)
{
	siglongjmp(jmp, 1);
}

static void *reader(void *arg)
{
	int fd = *(int *)arg;
	char buf[16];
	double t0 = now_sec();
	ssize_t n = read(fd, buf, sizeof(buf));

	printf("  old session: blocked read() returned %zd (%s) after %.2f s\n",
	       n, n < 0 ? strerror(errno) : "data", now_sec() - t0);
	return NULL;
}

static void *poller(void *arg)
{
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLIN };

	poll(&pfd, 1, -1);
	printf("  old session: poll() woke up with revents 0x%x (POLLERR|POLLHUP = 0x%x)\n",
	       pfd.revents, POLLERR | POLLHUP);
	return NULL;
}

/* Print and run revoke(1) on the NULL-terminated @paths. */
static int revoke_paths(const char * const *paths)
{
	const char * const *p;
	int status;

	printf("  # revoke");
	for (p = paths; *p; p++)
		printf(" %s", *p);
	printf("\n");
	status = revoke_cmd(paths);
	printf("  (exit status %d)\n", status);
	return status;
}

/*
 * What logind would do: revoke every device node of the seat's
 * directories with revoke(1), which calls revokeat(2) on each.
 */
static int revoke_dirs(const char * const *dirs)
{
	static char paths[62][300];
	const char *argv[63];
	struct dirent *de;
	int n = 0;
	DIR *d;

	for (; *dirs; dirs++) {
		d = opendir(*dirs);
		if (!d)
			continue;
		while ((de = readdir(d)) && n < 62) {
			if (de->d_type != DT_CHR)
				continue;
			snprintf(paths[n], sizeof(paths[n]), "%s/%s", *dirs,
				 de->d_name);
			argv[n] = paths[n];
			n++;
		}
		closedir(d);
	}
	argv[n] = NULL;
	return revoke_paths(argv) ? -1 : n;
}

static void *player(void *arg)
{
	static char silence[PERIOD_FRAMES * FRAME_BYTES];
	int fd = *(int *)arg;

	while (write(fd, silence, sizeof(silence)) > 0)
		;
	printf("  old session: its playback write() stopped: %s\n",
	       strerror(errno));
	return NULL;
}

static void *evdev_reader(void *arg)
{
	struct input_event ev;
	int fd = *(int *)arg;

	if (read(fd, &ev, sizeof(ev)) < 0)
		printf("  old session: its read() of %s returned: %s\n",
		       "the keyboard", strerror(errno));
	return NULL;
}

/* The same, on a uinput keyboard and the snd-dummy PCM. */
static void seat_switch(void)
{
	int kbd, pcm, fresh, card, n;
	pthread_t kt, pt;
	struct input_event ev;
	char pcm_node[64];
	struct udev u;

	printf("== a seat switch: /dev/input and /dev/snd\n");
	card = find_card("Dummy");
	node(pcm_node, sizeof(pcm_node), "/dev/snd/pcmC%dD0p", card);
	if (card < 0 || udev_create(&u, "demo keyboard", CAP_KBD))
		return;
	kbd = open(u.event, O_RDONLY);
	pcm = open(pcm_node, O_RDWR);
	if (kbd < 0 || pcm < 0 || ioctl(kbd, EVIOCGRAB, 1) ||
	    pcm_setup(pcm, SNDRV_PCM_ACCESS_RW_INTERLEAVED))
		return;
	printf("  old session: grabs %s and reads it, plays on %s\n",
	       u.event, pcm_node);
	pthread_create(&kt, NULL, evdev_reader, &kbd);
	pthread_create(&pt, NULL, player, &pcm);
	usleep(300000);
	fresh = open(pcm_node, O_RDWR | O_NONBLOCK);
	printf("  new session: open(%s) -> %s\n", pcm_node,
	       fresh < 0 ? strerror(errno) : "ok");
	if (fresh >= 0)
		close(fresh);

	printf("== the session manager revokes every node of the seat\n");
	n = revoke_dirs((const char *[]){ "/dev/input", "/dev/snd", NULL });
	printf("  %d nodes revoked\n", n);
	pthread_join(kt, NULL);
	pthread_join(pt, NULL);

	printf("== the new session\n");
	fresh = open(u.event, O_RDONLY);
	printf("  EVIOCGRAB -> %s", ioctl(fresh, EVIOCGRAB, 1) ?
	       strerror(errno) : "ok");
	udev_emit(&u, EV_KEY, KEY_B, 1);
	printf("; a key press reaches it: %s\n",
	       read(fresh, &ev, sizeof(ev)) == sizeof(ev) && ev.code == KEY_B ?
	       "yes" : "no");
	close(fresh);
	fresh = open(pcm_node, O_RDWR | O_NONBLOCK);
	printf("  open(%s) -> %s, plays: %s\n", pcm_node,
	       fresh < 0 ? strerror(errno) : "ok",
	       fresh >= 0 && !pcm_setup(fresh, SNDRV_PCM_ACCESS_RW_INTERLEAVED) ?
	       "yes" : "no");
	close(fresh);
	close(kbd);
	close(pcm);
	udev_destroy(&u);
}

static void try_node(const char *node)
{
	revoke_paths((const char *[]){ node, NULL });
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	unsigned int *map, magic = 0xc0ffee;
	struct revoke_test_stats st;
	pthread_t rt, pt;
	int fd, nfd, status;
	pid_t child;

	setvbuf(stdout, NULL, _IONBF, 0);
	node_drain(RT_NODE);
	printf("== the old session opens %s\n", RT_NODE);
	fd = open(RT_NODE, O_RDWR);
	if (fd < 0 || ioctl(fd, REVOKE_TEST_IOC_OWN))
		return 1;
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ioctl(fd, REVOKE_TEST_IOC_POKE, &magic);
	printf("  claims the device (exclusive), maps it (reads 0x%x), forks a child,\n"
	       "  blocks a thread in read() and another in poll()\n", *map);
	child = fork();
	if (child == 0) {
		sleep(2);
		_exit(check_revoked(fd) ? 1 : 0);
	}
	pthread_create(&rt, NULL, reader, &fd);
	pthread_create(&pt, NULL, poller, &fd);
	usleep(300000);

	nfd = open(RT_NODE, O_RDWR);
	printf("== the new session opens it: claim -> %s\n",
	       ioctl(nfd, REVOKE_TEST_IOC_OWN) ? strerror(errno) : "ok");
	close(nfd);

	printf("== the session manager revokes the device\n");
	try_node(RT_NODE);
	pthread_join(rt, NULL);
	pthread_join(pt, NULL);
	printf("  old session: write() -> %s, ioctl() -> %s\n",
	       write(fd, "x", 1) < 0 ? strerror(errno) : "ok",
	       ioctl(fd, REVOKE_TEST_IOC_NOP) ? strerror(errno) : "ok");
	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(jmp, 1))
		printf("  old session: touching its mapping -> SIGBUS\n");
	else
		printf("  old session: mapping still reads 0x%x (BUG)\n", *map);
	waitpid(child, &status, 0);
	printf("  old session's child: its inherited descriptor is %s\n",
	       WIFEXITED(status) && !WEXITSTATUS(status) ? "revoked too" : "NOT revoked");

	printf("== the new session opens it again\n");
	nfd = open(RT_NODE, O_RDWR);
	printf("  claim -> %s; write+read -> %s\n",
	       ioctl(nfd, REVOKE_TEST_IOC_OWN) ? strerror(errno) : "ok",
	       check_works(nfd) ? "failed" : "ok");
	node_stats(RT_NODE, &st);
	printf("  driver counters: %u opens, %u releases, %u revokes\n",
	       st.opens, st.releases, st.revokes);
	close(nfd);
	close(fd);

	seat_switch();

	printf("== what cannot be revoked\n");
	try_node(RT_PLAIN);
	try_node("/tmp");
	return 0;
}
