/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib.h>

#include "log.h"
#include "manager.h"
#include "swap-watch.h"
#include "util.h"

#define PROC_SWAPS "/proc/swaps"
#define SWAP_TIERS_PATH "/sys/kernel/mm/swap/tiers"
/* swapon of several devices in a row is one change. */
#define SETTLE_USEC (500 * 1000)

struct SwapWatch {
        Manager *manager;
        int swaps_fd;
        sd_event_source *swaps_source;
        sd_event_source *tiers_timer;  /* only where the kernel has swap tiers */
        sd_event_source *settle;
        uint64_t changes;              /* events seen, for status */
};

static int on_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        SwapWatch *w = userdata;
        (void) s;
        (void) usec;

        manager_swap_changed(w->manager);
        return 0;
}

/* A change seen: the manager looks once things have settled. */
static void changed(SwapWatch *w) {
        w->changes++;
        if (!w->settle) {
                if (sd_event_add_time_relative(w->manager->event, &w->settle, CLOCK_MONOTONIC, SETTLE_USEC,
                                               100 * 1000, on_settled, w) < 0) {
                        manager_swap_changed(w->manager);
                        return;
                }
        } else
                (void) sd_event_source_set_time_relative(w->settle, SETTLE_USEC);
        (void) sd_event_source_set_enabled(w->settle, SD_EVENT_ONESHOT);
}

static int on_swaps(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        SwapWatch *w = userdata;
        char buf[4096];
        (void) s;

        /* The poll itself took the event (swaps_poll()); read to the end
         * all the same, as a seq_file reader should. */
        if (lseek(fd, 0, SEEK_SET) == 0)
                while (read(fd, buf, sizeof(buf)) > 0)
                        ;
        if (revents & (EPOLLPRI | EPOLLERR))
                changed(w);
        return 0;
}

static int on_tiers_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        SwapWatch *w = userdata;

        /* manager_swap_changed() compares, and does nothing when all is as it was. */
        manager_swap_changed(w->manager);
        manager_swap_tiers_verify(w->manager);
        (void) sd_event_source_set_time(s, usec + SWAP_TIERS_POLL_SEC * G_USEC_PER_SEC);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ON);
        return 0;
}

int swap_watch_new(Manager *m, SwapWatch **ret) {
        g_autofree SwapWatch *w = g_new0(SwapWatch, 1);
        int r;

        assert(m && ret);
        w->manager = m;
        w->swaps_fd = open(PROC_SWAPS, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (w->swaps_fd < 0)
                log_warning_errno(negative_errno(), "Cannot open %s, swap changes are seen at a reload only: %m",
                                  PROC_SWAPS);
        else {
                r = sd_event_add_io(m->event, &w->swaps_source, w->swaps_fd, EPOLLPRI, on_swaps, w);
                if (r < 0) {
                        log_warning_errno(r, "Cannot watch %s, swap changes are seen at a reload only: %m",
                                          PROC_SWAPS);
                        w->swaps_fd = safe_close(w->swaps_fd);
                }
        }
        if (access(SWAP_TIERS_PATH, F_OK) == 0) {
                r = sd_event_add_time_relative(m->event, &w->tiers_timer, CLOCK_MONOTONIC,
                                               SWAP_TIERS_POLL_SEC * G_USEC_PER_SEC, G_USEC_PER_SEC, on_tiers_timer,
                                               w);
                if (r >= 0)
                        (void) sd_event_source_set_enabled(w->tiers_timer, SD_EVENT_ON);
                else
                        log_warning_errno(r, "Cannot poll %s, tier changes are seen at a reload only: %m",
                                          SWAP_TIERS_PATH);
        }
        *ret = TAKE_PTR(w);
        return 0;
}

SwapWatch *swap_watch_free(SwapWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->swaps_source);
        sd_event_source_disable_unref(w->tiers_timer);
        sd_event_source_disable_unref(w->settle);
        safe_close(w->swaps_fd);
        g_free(w);
        return NULL;
}

char *swap_watch_describe(SwapWatch *w) {
        if (!w)
                return g_strdup("not watched");
        g_autofree char *tiers = w->tiers_timer ? g_strdup_printf(", tiers read every %d s", SWAP_TIERS_POLL_SEC)
                                                : NULL;
        return g_strdup_printf("%s%s, %" G_GUINT64_FORMAT " changes seen",
                               w->swaps_source ? "swapon and swapoff followed (" PROC_SWAPS ")"
                                               : "not followed (a reload reads " PROC_SWAPS ")",
                               strempty(tiers), w->changes);
}
