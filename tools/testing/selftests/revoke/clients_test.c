// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's own clients of the converted devices -- aplay, arecord,
 * speaker-test, amidi, aseqdump, alsactl, amixer, evtest, libinput,
 * PipeWire playing pw-cat into an ALSA sink and PipeWire's ALSA sequencer
 * bridge (harness/guest-pipewire.sh) --
 * against a revokeat(2) of the nodes they hold, and against an unplug of
 * their device (the sound cards unbound from their drivers, the uinput
 * device destroyed), which they have always had to survive.
 *
 * All clients run at once, as the old session's user, who owns the
 * nodes.  At the seat switch the nodes are taken away as a session
 * manager does it: chowned to root first (so no old client can open them
 * again), then revoked, then given to the new session's user, whose new
 * instances follow.  Or the devices are unplugged.  The old clients are
 * watched for 5 s: they exit with a status, die of a signal, or keep
 * running, idle or spinning.  A revoke
 * must do no worse than the unplug: a client that dies or spins after the
 * revoke fails unless it does the same after the unplug (a bug of the
 * client).  After each, a new instance of every client must work: at once
 * after the revoke, with the old instances still around; after the
 * devices are back from the unplug.
 *
 * The programs, their libraries and data are packed into the initramfs
 * by harness/guest.sh; a table of what each did goes to the log.
 */

#include <dirent.h>
#include <grp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "../kselftest.h"
#include "revoke_util.h"
#include "input_util.h"
#include "sound_util.h"

#define WATCH_MS	5000	/* how long a client is watched */
#define IDLE_CPU	0.2	/* CPU seconds in WATCH_MS that are "idle" */
/*
 * For a client to open its device and play, under TCG: PipeWire takes
 * 10-20 s, more while the old instances still use the CPUs.
 */
#define START_MS	60000
#define LOGDIR		"/tmp/clients"
#define WAV		LOGDIR "/silence.wav"	/* 90 s for pw-cat */
#define OLD_UID		1000	/* the session whose seat is taken away */
#define NEW_UID		1001	/* the session that gets the seat */

enum dev { DUMMY, ALOOP, VIRMIDI, SEQ, INPUT, NR_DEVS };

/* The sound cards and how they are unplugged. */
static const struct {
	const char *id, *drv, *pdev;
} cards[] = {
	[DUMMY] = { "Dummy", "snd_dummy", "snd_dummy.0" },
	[ALOOP] = { "Loopback", "snd_aloop", "snd_aloop.0" },
	[VIRMIDI] = { "VirMIDI", "snd_virmidi", "snd_virmidi.0" },
};

/* A node a client holds: a printf format taking the card's number. */
struct hold {
	enum dev dev;
	const char *fmt;
};

enum scenario { REVOKE, UNPLUG, NR_SCENARIOS };
static const char * const scenario_name[] = { "revoke", "unplug" };

struct outcome {
	bool started;		/* it opened its device */
	bool exited;
	int status;		/* exit status, or */
	int sig;		/* the signal that killed it */
	char state;		/* if still running */
	double cpu;		/* CPU seconds used while watched */
	bool new_ok;		/* a new instance worked */
	char note[160];		/* last line of its output */
};

struct client {
	const char *name;
	/* "@EV": the evdev node; "@SEQ": the virmidi sequencer port. */
	const char *argv[20];
	struct hold holds[4];	/* to a NULL fmt */
	/* A new instance works if this shows it playing (card's number)... */
	const char *status;
	/* ...or if it prints this for a key pressed on the input device. */
	const char *key_output;
	pid_t pid;
	struct outcome out[NR_SCENARIOS];
};

#define PCM_ARGS "-t", "raw", "-f", "S16_LE", "-r", "48000", "-c", "2"

static struct client clients[] = {
	{ "aplay", { "/usr/bin/aplay", "-q", "-D", "hw:Dummy,0", PCM_ARGS,
		     "/dev/zero" },
	  { { DUMMY, "/dev/snd/pcmC%dD0p" } },
	  "/proc/asound/card%d/pcm0p/sub0/status" },
	{ "aplay -M", { "/usr/bin/aplay", "-q", "-M", "-D", "hw:Loopback,0,0",
			PCM_ARGS, "/dev/zero" },
	  { { ALOOP, "/dev/snd/pcmC%dD0p" } },
	  "/proc/asound/card%d/pcm0p/sub0/status" },
	{ "arecord", { "/usr/bin/arecord", "-q", "-D", "hw:Dummy,0", PCM_ARGS,
		       "/dev/null" },
	  { { DUMMY, "/dev/snd/pcmC%dD0c" } },
	  "/proc/asound/card%d/pcm0c/sub0/status" },
	{ "speaker-test", { "/usr/bin/speaker-test", "-D", "hw:Loopback,1",
			    "-c", "2", "-r", "48000", "-F", "S16_LE", "-t",
			    "sine" },
	  { { ALOOP, "/dev/snd/pcmC%dD1p" } },
	  "/proc/asound/card%d/pcm1p/sub0/status" },
	{ "amidi -d", { "/usr/bin/amidi", "-p", "hw:VirMIDI,0", "-d" },
	  { { VIRMIDI, "/dev/snd/midiC%dD0" } } },
	/*
	 * Ignores read errors and polls again: it spun on poll's ERR|HUP
	 * until the sequencer's revoked files polled nothing
	 * (FOP_REVOKE_QUIET); now it sleeps in poll, idle.
	 */
	{ "aseqdump", { "/usr/bin/aseqdump", "-p", "@SEQ" },
	  { { SEQ, "/dev/snd/seq" } } },
	{ "alsactl monitor", { "/usr/sbin/alsactl", "monitor" },
	  { { DUMMY, "/dev/snd/controlC%d" }, { ALOOP, "/dev/snd/controlC%d" },
	    { VIRMIDI, "/dev/snd/controlC%d" } } },
	{ "amixer events", { "/usr/bin/amixer", "-D", "hw:Dummy", "events" },
	  { { DUMMY, "/dev/snd/controlC%d" } } },
	{ "evtest", { "/usr/bin/evtest", "@EV" },
	  { { INPUT, "@EV" } }, NULL, "(EV_KEY), code 30 (KEY_A), value 1" },
	{ "libinput", { "/usr/bin/libinput", "debug-events", "--device", "@EV" },
	  { { INPUT, "@EV" } }, NULL, "KEYBOARD_KEY" },
	/* The daemon, with pw-cat playing into its ALSA sink. */
	{ "pipewire", { "/bin/sh", "/usr/libexec/revoke/guest-pipewire.sh",
			"hw:Loopback,0,2", WAV },
	  { { ALOOP, "/dev/snd/pcmC%dD0p" } },
	  "/proc/asound/card%d/pcm0p/sub2/status" },
	/*
	 * The daemon with its ALSA sequencer bridge, which has no error path
	 * on the sequencer's poll source: it would spin on ERR|HUP as
	 * aseqdump did, and idles on a file that polls nothing.
	 */
	{ "pipewire seq", { "/bin/sh", "/usr/libexec/revoke/guest-pipewire.sh",
			    "seq" },
	  { { SEQ, "/dev/snd/seq" } } },
};

#define NR_CLIENTS ARRAY_SIZE(clients)

static struct udev kbd;		/* the uinput keyboard */
static bool kbd_alive;
static char seq_port[16];	/* "client:0" of the virmidi port */

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return ret;
}

static int file_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return ret;
}

/* Up to @len - 1 bytes of @path; the length read, or -1. */
static int file_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/*
 * 90 s of silence, 48 kHz stereo S16_LE, for pw-cat: it must still play
 * when the last client has started, up to START_MS later.
 */
static int write_wav(void)
{
	static char zero[65536];
	unsigned int len = 90 * 48000 * FRAME_BYTES, done;
	struct {
		char riff[4];
		unsigned int riff_len;
		char wave[4], fmt[4];
		unsigned int fmt_len;
		unsigned short format, channels;
		unsigned int rate, byte_rate;
		unsigned short align, bits;
		char data[4];
		unsigned int data_len;
	} hdr = {	/* 44 bytes, no padding */
		{ 'R', 'I', 'F', 'F' }, 36 + len, { 'W', 'A', 'V', 'E' },
		{ 'f', 'm', 't', ' ' }, 16, 1, 2, 48000, 48000 * FRAME_BYTES,
		FRAME_BYTES, 16, { 'd', 'a', 't', 'a' }, len,
	};
	int fd, ret = 0;

	fd = open(WAV, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, &hdr, sizeof(hdr)) != sizeof(hdr))
		ret = -1;
	for (done = 0; !ret && done < len; done += sizeof(zero))
		if (write(fd, zero, sizeof(zero)) != sizeof(zero))
			ret = -1;
	close(fd);
	return ret;
}

/* The uinput keyboard, with the udev data libinput wants of it. */
static int kbd_create(void)
{
	char path[64];
	struct stat st;

	if (udev_create(&kbd, "revoke-clients-kbd", CAP_KBD) ||
	    stat(kbd.event, &st))
		return -1;
	mkdir("/run", 0755);
	mkdir("/run/udev", 0755);
	mkdir("/run/udev/data", 0755);
	snprintf(path, sizeof(path), "/run/udev/data/c%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	if (file_write(path, "I:1000000\nE:ID_INPUT=1\nE:ID_INPUT_KEY=1\n"
			     "E:ID_INPUT_KEYBOARD=1\n"))
		return -1;
	kbd_alive = true;
	return 0;
}

/* The sequencer client of snd-virmidi, as "client:0". */
static int find_seq_port(void)
{
	static char buf[16384];
	int client;
	char *p;

	if (file_read("/proc/asound/seq/clients", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\"Virtual Raw MIDI");
	if (!p)
		return -1;
	while (p > buf && p[-1] != '\n')
		p--;
	if (sscanf(p, "Client %d", &client) != 1)
		return -1;
	snprintf(seq_port, sizeof(seq_port), "%d:0", client);
	return 0;
}

/*
 * Give the seat's nodes to @uid, as logind's uaccess does: every node
 * under /dev/snd (the global sequencer and timer too) and the keyboard.
 * Root (0) is what a session manager leaves them to between two sessions.
 */
static int grant(uid_t uid)
{
	char path[300];
	struct dirent *de;
	int ret = 0;
	DIR *dir;

	dir = opendir("/dev/snd");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "by-path"))
			continue;
		snprintf(path, sizeof(path), "/dev/snd/%s", de->d_name);
		ret |= chown(path, uid, uid) | chmod(path, 0600);
	}
	closedir(dir);
	if (kbd_alive)
		ret |= chown(kbd.event, uid, uid) | chmod(kbd.event, 0600);
	if (ret)
		ksft_print_msg("cannot give the nodes to %u\n", uid);
	return ret ? -1 : 0;
}

/* The path of @h: -1 if its device is not there. */
static int hold_path(const struct hold *h, char *buf, size_t len)
{
	int card;

	if (h->dev == INPUT)
		return snprintf(buf, len, "%s", kbd.event) > 0 ? 0 : -1;
	if (h->dev == SEQ)
		return snprintf(buf, len, "%s", h->fmt) > 0 ? 0 : -1;
	card = find_card(cards[h->dev].id);
	if (card < 0)
		return -1;
	snprintf(buf, len, h->fmt, card);
	return 0;
}

/* Whether @pid has a file of every node of @c open. */
static bool holds_all(struct client *c, pid_t pid)
{
	char want[64], fddir[64], link[320], target[128];
	const struct hold *h;
	struct dirent *de;
	bool found;
	DIR *dir;

	snprintf(fddir, sizeof(fddir), "/proc/%d/fd", pid);
	for (h = c->holds; h->fmt; h++) {
		if (hold_path(h, want, sizeof(want)))
			return false;
		dir = opendir(fddir);
		if (!dir)
			return false;
		found = false;
		while (!found && (de = readdir(dir))) {
			ssize_t n;

			snprintf(link, sizeof(link), "%s/%s", fddir, de->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = 0;
			found = !strcmp(target, want);
		}
		closedir(dir);
		if (!found)
			return false;
	}
	return true;
}

static void log_path(char *buf, size_t len, struct client *c,
		     enum scenario s, bool fresh)
{
	char name[32];
	int i;

	snprintf(name, sizeof(name), "%s", c->name);
	for (i = 0; name[i]; i++)
		if (name[i] == ' ')
			name[i] = '_';
	snprintf(buf, len, LOGDIR "/%s.%s%s.log", name, scenario_name[s],
		 fresh ? ".new" : "");
}

/* Start @c as @uid, its output to its log. */
static pid_t spawn(struct client *c, enum scenario s, bool fresh, uid_t uid)
{
	static char * const envp[] = {
		"PATH=/usr/bin:/usr/sbin:/bin:/sbin", "HOME=/tmp", NULL,
	};
	char *argv[20], log[96];
	pid_t pid;
	int i, fd;

	log_path(log, sizeof(log), c, s, fresh);
	for (i = 0; c->argv[i]; i++) {
		if (!strcmp(c->argv[i], "@EV"))
			argv[i] = kbd.event;
		else if (!strcmp(c->argv[i], "@SEQ"))
			argv[i] = seq_port;
		else
			argv[i] = (char *)c->argv[i];
	}
	argv[i] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	setpgid(0, 0);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	dup2(fd, 2);
	fd = open("/dev/null", O_RDONLY);
	dup2(fd, 0);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		printf("cannot become %u: %s\n", uid, strerror(errno));
		_exit(126);
	}
	execve(argv[0], argv, envp);
	_exit(127);
}

/* Who else has @c's nodes open, when its new instance did not work. */
static void print_holders(struct client *c)
{
	struct dirent *de;
	char comm[64];
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		pid_t pid = atoi(de->d_name);
		char path[300];

		if (pid <= 0 || pid == getpid() || !holds_all(c, pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (file_read(path, comm, sizeof(comm)) <= 0)
			continue;
		comm[strcspn(comm, "\n")] = 0;
		ksft_print_msg("  %s's device is held by %d (%s)\n", c->name,
			       pid, comm);
	}
	closedir(dir);
}

/* The first lines of what @c printed, when it did not work. */
static void print_log(struct client *c, enum scenario s, bool fresh)
{
	char log[96], line[256];
	int n = 0;
	FILE *f;

	log_path(log, sizeof(log), c, s, fresh);
	f = fopen(log, "r");
	if (!f)
		return;
	while (n++ < 40 && fgets(line, sizeof(line), f))
		ksft_print_msg("  | %s", line);
	fclose(f);
}

/* The last line @c printed, for the table's notes. */
static void last_line(struct client *c, enum scenario s, bool fresh,
		      char *buf, size_t len)
{
	static char text[65536];
	char log[96], *end, *p;
	int n;

	log_path(log, sizeof(log), c, s, fresh);
	n = file_read(log, text, sizeof(text));
	buf[0] = 0;
	if (n <= 0)
		return;
	end = text + n;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = 0;
	p = end;
	while (p > text && p[-1] != '\n')
		p--;
	n = end - p < (int)len ? end - p : (int)len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
}

static bool log_has(struct client *c, enum scenario s, const char *what)
{
	static char text[65536];
	char log[96];

	log_path(log, sizeof(log), c, s, true);
	return file_read(log, text, sizeof(text)) > 0 && strstr(text, what);
}

/* State and CPU seconds of @pid; false if it is gone. */
static bool proc_cpu(pid_t pid, char *state, double *cpu)
{
	char path[64], buf[512], *p;
	unsigned long utime, stime;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (file_read(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 state, &utime, &stime) != 3)
		return false;
	*cpu = (double)(utime + stime) / sysconf(_SC_CLK_TCK);
	return true;
}

/* Whether the stream of @c is playing (or recording, or draining). */
static bool playing(struct client *c)
{
	char path[64], buf[512];
	int card;

	if (!c->status)
		return true;
	card = find_card(cards[c->holds[0].dev].id);
	snprintf(path, sizeof(path), c->status, card);
	if (file_read(path, buf, sizeof(buf)) <= 0)
		return false;
	/* speaker-test drains after each channel. */
	return strstr(buf, "state: RUNNING") || strstr(buf, "state: DRAINING");
}

/*
 * Wait until each of @pids holds its nodes and its stream plays (PipeWire
 * opens and closes the device a few times before that): false for those
 * that do not.
 */
static void wait_started(pid_t *pids, bool *ok)
{
	double start = now_sec(), took[NR_CLIENTS] = {};
	unsigned int i, left, last = 0;

	memset(ok, 0, sizeof(*ok) * NR_CLIENTS);
	do {
		left = 0;
		for (i = 0; i < NR_CLIENTS; i++) {
			if (!ok[i]) {
				ok[i] = holds_all(&clients[i], pids[i]) &&
					playing(&clients[i]);
				took[i] = now_sec() - start;
				if (took[i] > took[last])
					last = i;
			}
			left += !ok[i];
		}
		if (left)
			usleep(50000);
	} while (left && now_sec() < start + START_MS / 1000.0);
	ksft_print_msg("started in %.1f s, the last %s\n", took[last],
		       clients[last].name);
}

/* Wait up to @ms for @pid to exit, leaving it to be reaped. */
static void exited_within(pid_t pid, int ms)
{
	siginfo_t si;
	int i;

	for (i = 0; i <= ms / 10; i++) {
		si.si_pid = 0;
		if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) ||
		    si.si_pid)
			return;
		usleep(10000);
	}
}

static void kill_reap(pid_t pid, int sig)
{
	kill(-pid, sig);
	kill(pid, sig);
	if (reap_within(pid, 3000) == -2) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Watch the clients for WATCH_MS after the revoke or the unplug. */
static void watch(enum scenario s, double *cpu0)
{
	double end = now_sec() + WATCH_MS / 1000.0;
	unsigned int i;
	int status;

	while (now_sec() < end) {
		for (i = 0; i < NR_CLIENTS; i++) {
			struct client *c = &clients[i];
			struct outcome *o = &c->out[s];

			if (!o->started || o->exited)
				continue;
			if (waitpid(c->pid, &status, WNOHANG) != c->pid)
				continue;
			o->exited = true;
			if (WIFEXITED(status))
				o->status = WEXITSTATUS(status);
			else
				o->sig = WTERMSIG(status);
		}
		usleep(20000);
	}
	for (i = 0; i < NR_CLIENTS; i++) {
		struct client *c = &clients[i];
		struct outcome *o = &c->out[s];
		double cpu;

		if (!o->started || o->exited)
			continue;
		if (proc_cpu(c->pid, &o->state, &cpu))
			o->cpu = cpu - cpu0[i];
	}
}

/* Did the client do what a client may do after losing its device? */
static bool outcome_good(const struct outcome *o)
{
	if (!o->started)
		return false;
	if (o->exited)
		return !o->sig;
	return o->cpu < IDLE_CPU && o->state != 'D';
}

/*
 * After the revoke, no worse than after the unplug: dead of a signal,
 * stuck or busy after both, or busy after the revoke with at least half
 * as much CPU used after the unplug, or up to twice the idle limit
 * (PipeWire retries its device every 40 ms or so after both, near the
 * idle limit under TCG, on either side of it).
 */
static bool same_as_unplug(const struct outcome *r, const struct outcome *u)
{
	if (!outcome_good(u))
		return true;
	return r->started && !r->exited && r->state != 'D' && !u->exited &&
	       r->cpu <= 2 * (u->cpu > IDLE_CPU ? u->cpu : IDLE_CPU);
}

/* The verdict of the revoke. */
static bool revoke_good(const struct outcome *r, const struct outcome *u)
{
	return outcome_good(r) || same_as_unplug(r, u);
}

static void outcome_text(const struct outcome *o, char *buf, size_t len)
{
	if (!o->started)
		snprintf(buf, len, "did not start");
	else if (o->exited && o->sig)
		snprintf(buf, len, "killed by %s", strsignal(o->sig));
	else if (o->exited)
		snprintf(buf, len, "exit %d", o->status);
	else if (o->state == 'D')
		snprintf(buf, len, "stuck (D), %.2f s CPU", o->cpu);
	else
		snprintf(buf, len, "%s, %.2f s CPU",
			 o->cpu < IDLE_CPU ? "idle" :
			 o->cpu < 5 * IDLE_CPU ? "busy" : "SPINS", o->cpu);
}

/*
 * A new instance of every client, at the same time, as a fresh session's
 * would be: each must open its device and keep it for a second, with the
 * stream running, or report a key pressed meanwhile.
 */
static void new_instances(enum scenario s)
{
	bool ok[NR_CLIENTS], seen[NR_CLIENTS] = {};
	pid_t pids[NR_CLIENTS];
	unsigned int i, k;

	for (i = 0; i < NR_CLIENTS; i++)
		pids[i] = spawn(&clients[i], s, true, NEW_UID);
	wait_started(pids, ok);
	/* A second more: still holding the device and playing. */
	for (k = 0; k < 20; k++) {
		usleep(50000);
		for (i = 0; i < NR_CLIENTS; i++)
			seen[i] = seen[i] || playing(&clients[i]);
	}
	if (kbd_alive) {
		udev_emit(&kbd, EV_KEY, KEY_A, 1);
		udev_emit(&kbd, EV_KEY, KEY_A, 0);
		usleep(300000);
	}
	for (i = 0; i < NR_CLIENTS; i++) {
		ok[i] = ok[i] && seen[i] && holds_all(&clients[i], pids[i]);
		/* Still there: a stream or a monitor does not stop. */
		if (waitpid(pids[i], NULL, WNOHANG) != 0) {
			ok[i] = false;
			pids[i] = 0;
		}
	}
	/* SIGINT: evtest and libinput flush what they printed, then exit. */
	for (i = 0; i < NR_CLIENTS; i++)
		if (pids[i])
			kill(pids[i], SIGINT);
	for (i = 0; i < NR_CLIENTS; i++)
		if (pids[i] && clients[i].key_output)
			exited_within(pids[i], 3000);
	for (i = 0; i < NR_CLIENTS; i++) {
		if (pids[i])
			kill_reap(pids[i], SIGTERM);
		if (ok[i] && clients[i].key_output)
			ok[i] = log_has(&clients[i], s, clients[i].key_output);
		clients[i].out[s].new_ok = ok[i];
		if (!ok[i]) {
			char line[160];

			last_line(&clients[i], s, true, line, sizeof(line));
			ksft_print_msg("new %s after the %s failed: %s\n",
				       clients[i].name, scenario_name[s], line);
			print_log(&clients[i], s, true);
			print_holders(&clients[i]);
		}
	}
}

/* Start the clients; their CPU times once they hold their devices. */
static void start_all(enum scenario s, double *cpu0)
{
	pid_t pids[NR_CLIENTS];
	bool ok[NR_CLIENTS];
	unsigned int i;
	char state;

	for (i = 0; i < NR_CLIENTS; i++) {
		clients[i].pid = spawn(&clients[i], s, false, OLD_UID);
		pids[i] = clients[i].pid;
	}
	wait_started(pids, ok);
	/* Settle: the streams run, the monitors wait. */
	usleep(1000000);
	for (i = 0; i < NR_CLIENTS; i++) {
		clients[i].out[s].started = ok[i] &&
			proc_cpu(pids[i], &state, &cpu0[i]);
		if (!ok[i]) {
			char line[160];

			last_line(&clients[i], s, false, line, sizeof(line));
			ksft_print_msg("%s did not open its device: %s\n",
				       clients[i].name, line);
			print_log(&clients[i], s, false);
		}
	}
}

static void save_notes(enum scenario s)
{
	unsigned int i;

	for (i = 0; i < NR_CLIENTS; i++)
		last_line(&clients[i], s, false, clients[i].out[s].note,
			  sizeof(clients[i].out[s].note));
}

/*
 * A: the seat switch.  The old user loses access to the nodes, every node
 * the clients hold is revoked, and the nodes go to the new user.
 */
static int scenario_revoke(void)
{
	double cpu0[NR_CLIENTS];
	char nodes[16][64];
	const char *argv[17];
	int n = 0, i, j, failed = 0;
	unsigned int k;

	failed += !!grant(OLD_UID);
	start_all(REVOKE, cpu0);
	failed += !!grant(0);
	for (k = 0; k < NR_CLIENTS; k++) {
		const struct hold *h;

		for (h = clients[k].holds; h->fmt; h++) {
			char path[64];

			if (hold_path(h, path, sizeof(path)))
				continue;
			for (j = 0; j < n && strcmp(nodes[j], path); j++)
				;
			if (j == n && n < 16)
				snprintf(nodes[n++], sizeof(nodes[0]), "%s", path);
		}
	}
	/* With revoke(1), as a session manager's script would. */
	for (i = 0; i < n; i++)
		argv[i] = nodes[i];
	argv[n] = NULL;
	i = revoke_cmd(argv);
	if (i) {
		ksft_print_msg("revoke(1) on %d nodes: exit status %d\n", n, i);
		failed++;
	}
	failed += !!grant(NEW_UID);
	watch(REVOKE, cpu0);
	save_notes(REVOKE);
	/*
	 * At once, with the old instances still there, holding their revoked
	 * files; those that spin (aseqdump, amixer: their bugs, recorded
	 * above) are stopped, or the new ones start on what CPU is left
	 * (PipeWire took 32 s once).
	 */
	for (k = 0; k < NR_CLIENTS; k++) {
		const struct outcome *o = &clients[k].out[REVOKE];

		if (o->started && !o->exited && o->cpu >= IDLE_CPU) {
			kill(-clients[k].pid, SIGSTOP);
			kill(clients[k].pid, SIGSTOP);
		}
	}
	new_instances(REVOKE);
	for (k = 0; k < NR_CLIENTS; k++)
		if (!clients[k].out[REVOKE].exited)
			kill_reap(clients[k].pid, SIGKILL);
	return failed;
}

/* B: the cards unbound from their drivers, the uinput device destroyed. */
static int scenario_unplug(void)
{
	pid_t unbind[NR_DEVS] = {};
	double cpu0[NR_CLIENTS];
	char path[128];
	int d, failed = 0;
	unsigned int k;

	failed += !!grant(OLD_UID);
	start_all(UNPLUG, cpu0);
	/* The unbind waits for the cards' files to be closed. */
	for (d = DUMMY; d <= VIRMIDI; d++) {
		unbind[d] = fork();
		if (!unbind[d]) {
			snprintf(path, sizeof(path),
				 "/sys/bus/platform/drivers/%s/unbind",
				 cards[d].drv);
			_exit(sysfs_write(path, cards[d].pdev) ? 1 : 0);
		}
	}
	udev_destroy(&kbd);
	kbd_alive = false;
	watch(UNPLUG, cpu0);
	save_notes(UNPLUG);
	for (k = 0; k < NR_CLIENTS; k++)
		if (!clients[k].out[UNPLUG].exited)
			kill_reap(clients[k].pid, SIGKILL);
	for (d = DUMMY; d <= VIRMIDI; d++) {
		if (reap_within(unbind[d], 10000) != 0) {
			ksft_print_msg("unbind of %s failed\n", cards[d].pdev);
			failed++;
		}
		snprintf(path, sizeof(path), "/sys/bus/platform/drivers/%s/bind",
			 cards[d].drv);
		if (sysfs_write(path, cards[d].pdev) ||
		    find_card(cards[d].id) < 0) {
			ksft_print_msg("bind of %s failed\n", cards[d].pdev);
			failed++;
		}
	}
	if (kbd_create() || find_seq_port()) {
		ksft_print_msg("no keyboard or sequencer port after the unplug\n");
		failed++;
	}
	failed += !!grant(NEW_UID);
	new_instances(UNPLUG);
	return failed;
}

int main(void)
{
	char rtext[48], utext[48];
	int rfailed, ufailed;
	unsigned int i;

	ksft_print_header();
	ksft_set_plan(NR_CLIENTS * NR_SCENARIOS);
	mkdir(LOGDIR, 0755);
	if (kbd_create() || find_seq_port() || write_wav())
		ksft_exit_fail_msg("no uinput keyboard, virmidi port or WAV\n");

	rfailed = scenario_revoke();
	ufailed = scenario_unplug();

	ksft_print_msg("%-16s| %-24s| %-24s| %-8s| %s\n", "client",
		       "revoke: outcome", "unplug: outcome",
		       "new inst", "verdict");
	for (i = 0; i < NR_CLIENTS; i++) {
		struct client *c = &clients[i];
		struct outcome *r = &c->out[REVOKE], *u = &c->out[UNPLUG];
		const char *verdict;

		outcome_text(r, rtext, sizeof(rtext));
		outcome_text(u, utext, sizeof(utext));
		if (!r->started)
			verdict = "FAIL (did not start)";
		else if (!revoke_good(r, u))
			verdict = "FAIL (worse than unplug)";
		else if (!r->new_ok || !u->new_ok)
			verdict = "FAIL (new instance)";
		else if (!outcome_good(r))
			verdict = "pass (client bug, same on unplug)";
		else
			verdict = "pass";
		ksft_print_msg("%-16s| %-24s| %-24s| %-3s/%-4s| %s\n", c->name,
			       rtext, utext, r->new_ok ? "ok" : "BAD",
			       u->new_ok ? "ok" : "BAD", verdict);
	}
	for (i = 0; i < NR_CLIENTS; i++) {
		struct client *c = &clients[i];

		ksft_print_msg("%s said, revoke: \"%s\"; unplug: \"%s\"\n",
			       c->name, c->out[REVOKE].note,
			       c->out[UNPLUG].note);
	}
	for (i = 0; i < NR_CLIENTS; i++) {
		struct client *c = &clients[i];
		struct outcome *r = &c->out[REVOKE], *u = &c->out[UNPLUG];
		char name[32], *p;

		snprintf(name, sizeof(name), "%s", c->name);
		for (p = name; *p; p++)
			if (*p == ' ')
				*p = '_';
		ksft_test_result(!rfailed && r->started && r->new_ok &&
				 revoke_good(r, u), "%s.revoke\n", name);
		ksft_test_result(!ufailed && u->started && u->new_ok,
				 "%s.unplug\n", name);
	}
	ksft_finished();
}
