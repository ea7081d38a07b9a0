/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of the process layer share, and nothing else of policyd
 * includes: process-watch.h is the interface. One file a job:
 *
 *   process-watch.c     the entry points the manager calls, the watch mode
 *   process-notice.c    noticing: inotify on cgroup.procs, exec events
 *   process-scan.c      which processes a subject's cgroups hold now
 *   process-procfs.c    /proc/PID: start time, cgroup
 *   process-decide.c    what each process should get (process-plan.c)
 *   process-inject.c    talking to the injector: calls, replies, retries
 *   process-records.c   the records, and the record file for undo
 *   process-describe.c  the records and the watches, for explain and status */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "inject-client.h"
#include "policy-values.h"
#include "process-watch.h"

/* The owner of a cgroup.procs that could not be read: one bucket for all. */
#define PROCS_OWNER_UNKNOWN ((uid_t) -2)

/* One inotify watch. A subject's main entry is on its cgroup.procs; the
 * others of the subject ("below") are on the directories of its cgroup
 * and of the cgroups below it (IN_CREATE: a new cgroup), and on those
 * cgroups' cgroup.procs. */
typedef struct WatchedCgroup {
        int wd;
        bool main;
        bool directory;
        char *cgroup;
        char *subject;
        char *groups;   /* main: the member groups when last applied, to see a change */
        GArray *below;  /* main: the wds of the subject's other entries */
} WatchedCgroup;

struct ProcessWatch {
        Manager *manager;
        int inotify_fd;
        sd_event_source *inotify_source;
        GHashTable *watch_by_wd;      /* wd → WatchedCgroup*, owns */
        GHashTable *watch_by_subject; /* subject key → WatchedCgroup*, borrowed */
        GHashTable *watch_by_cgroup;  /* cgroup path → WatchedCgroup*, borrowed */
        GHashTable *subject_by_cgroup; /* cgroup path → subject key, of every subject with one, owns both */
        GHashTable *cgroup_by_subject; /* the other way, borrowed, to drop the entry */
        bool watch_mode_dirty;        /* what some record holds changed: see watching_all */
        bool watching_all;            /* some process holds what policyd set: see where it goes */
        NumaNodeMask memory_nodes;    /* the nodes with memory, read at start */
        bool memory_nodes_known;
        sd_event_source *retry_timer;
        GHashTable *records;          /* pid → ProcessRecord*, owns */
        GHashTable *scans;            /* subject keys to read cgroup.procs of → the uid charged, 0: none */
        sd_event_source *scan_defer;
        GQueue *waiting;              /* pids whose record waits for a call slot */
        unsigned calls_in_flight;
        unsigned generation;          /* bumped when what is wanted may have changed */
        bool active;                  /* some loaded group sets KSM= or NUMAPolicy= */
        bool startup_done;            /* units listed and read: records nobody placed can be decided */
        bool check_unplaced;          /* after the scans queued now */
        char *state_path;             /* what policyd set in which process, across its restarts */
        bool injector_missing_logged;
        InjectPool *injector;         /* the connections to policyd-inject.socket */
        GHashTable *procs_buckets;    /* charged uid + 1 → OwnerBudget* (process-inject.c), owns */
        GHashTable *held;             /* pids held back for their uid's rate */
        sd_event_source *held_timer;
};

typedef void (*CgroupVisit)(ProcessWatch *w, int dir_fd, const char *cgroup, void *data);

/* process-watch.c */
void process_watch_mode_changed(ProcessWatch *w);
void process_watch_update_mode(ProcessWatch *w);

/* process-notice.c */
void process_notice_unwatch(ProcessWatch *w, WatchedCgroup *c);
int process_notice_watch(ProcessWatch *w, Subject *s, WatchedCgroup **ret);
int process_notice_on_inotify(sd_event_source *source, int fd, uint32_t revents, void *userdata);

/* process-scan.c */
void process_scan_note_subject_cgroup(ProcessWatch *w, const char *key, const char *cgroup);
bool process_scan_is_subject_cgroup(ProcessWatch *w, const char *cgroup);
const char *process_scan_subject_of_cgroup(ProcessWatch *w, const char *cgroup);
void process_scan_walk_own_subtree(ProcessWatch *w, int dir_fd, const char *cgroup, unsigned depth, CgroupVisit visit,
                                   void *data);
int process_scan_on_defer(sd_event_source *source, void *userdata);
void process_scan_add(ProcessWatch *w, const char *key, uid_t charge_uid);
void process_scan_queue(ProcessWatch *w, const char *key);

/* process-procfs.c */
int process_procfs_read_start_time(pid_t pid, uint64_t *ret);
int process_procfs_read_cgroup(pid_t pid, char **ret);
int process_procfs_read_start_time_in(pid_t pid, const char *cgroup, uint64_t *ret);

/* process-decide.c */
char *process_decide_migration_wanted(ProcessWatch *w, const ProcessRecord *r, const char *moved_to,
                                      const char **ret_group);
void process_decide_from_query(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply);
void process_decide(ProcessWatch *w, ProcessRecord *r);
bool process_decide_subject_wanted(ProcessWatch *w, const Subject *s);
bool process_decide_exe_wants_nothing(ProcessWatch *w, pid_t pid, const GPtrArray *memberships, char **ret_exe);

/* process-inject.c */
int process_inject_on_retry(sd_event_source *source, uint64_t usec, void *userdata);
void process_inject_queue_call(ProcessWatch *w, ProcessRecord *r);
/* Starts the calls queued in w->waiting, as far as the slots allow. */
void process_inject_start_next(ProcessWatch *w);
int process_inject_on_held_timer(sd_event_source *source, uint64_t usec, void *userdata);

/* process-records.c */
void process_record_free(void *p);
bool process_record_holds_something(const ProcessRecord *r);
bool process_record_matters_elsewhere(const ProcessRecord *r);
int process_records_save(ProcessWatch *w);
Subject *process_record_subject(ProcessWatch *w, const ProcessRecord *r);
char *process_record_with_migration(const ProcessRecord *r, char *detail);
void process_record_set_outcome(ProcessRecord *r, ProcessMethod method, char *detail);
void process_record_forget(ProcessWatch *w, ProcessRecord *r);
void process_record_track_exit(ProcessWatch *w, ProcessRecord *r);
bool process_record_is_stale(ProcessRecord *r);
const GPtrArray *process_record_memberships(ProcessWatch *w, ProcessRecord *r);
ProcessRecord *process_record_new(ProcessWatch *w, pid_t pid, uint64_t start_time, const char *key);
void process_records_forget_exited(ProcessWatch *w, const char *key);
void process_records_load(ProcessWatch *w);
