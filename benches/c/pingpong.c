/* The FFI-overhead ping-pong in C (nerve.h): the same hop as benches/c/pingpong.cpp (C++),
 * benches/python/ffi_pingpong.py (Python) and nerve-bench's `__ffi-pingpong` (Rust), which
 * `nerve-bench ipc` runs side by side (src/ffi.rs).
 *   pingpong ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>
 * 16 bytes: the fixed message bench/Ping16 {seq, check = seq ^ 0x5555...}; larger: the chunked
 * bench/Blob {seq, len} + bytes, loaned and filled in place (the first and last 64 bytes from
 * seq, checked by the receiver, which reads in place). Topics <prefix>/ping and <prefix>/pong.
 * echo: says "ready", answers every ping with a pong of the same seq until seq UINT64_MAX.
 * ping: one-way = round trip / 2 for warmup + samples messages; prints "samples" and the last
 * `samples` values in ns on one line.
 *   pingpong loop <prefix> CmdVel|Imu <batches> <per_batch> <core>
 * the HORUS seed's "send+recv" in one thread: nerve's standard message published and received
 * per_batch times per batch (its stamp or seq checked); prints "samples" and each batch's mean
 * ns per send+recv. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nerve/msgs.h"

typedef struct {
    uint64_t seq;
    uint64_t check;
} Ping16;
NERVE_STRUCT(Ping16, "bench/Ping16", NERVE_FIELD(Ping16, seq, "u64"),
             NERVE_FIELD(Ping16, check, "u64"))

typedef struct {
    uint64_t seq;
    uint64_t len;
} BlobHeader;
NERVE_CHUNKED_STRUCT(BlobHeader, "bench/Blob", uint8_t, "u8", NERVE_FIELD(BlobHeader, seq, "u64"),
                     NERVE_FIELD(BlobHeader, len, "u64"))

#define STOP UINT64_MAX
#define CHECK_WORD 0x5555555555555555ull
#define TIMEOUT_NS 5000000000ll

static void die(const char *what) {
    fprintf(stderr, "pingpong.c: %s: %s\n", what, nerve_last_error());
    exit(1);
}
#define OK(call, what) \
    do {               \
        if ((call) < 0) die(what); \
    } while (0)

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

typedef struct {
    size_t bytes; /* 16: fixed; else chunked */
    int blocking;
    nerve_publisher *pub;
    nerve_subscriber *sub;
} Ends;

static void send_msg(Ends *e, uint64_t seq) {
    if (e->bytes == 16) {
        Ping16 m = {seq, seq ^ CHECK_WORD};
        OK(nerve_publish(e->pub, (const uint8_t *)&m, sizeof m), "publish");
        return;
    }
    nerve_loan loan;
    OK(nerve_loan_open(e->pub, e->bytes, &loan), "loan");
    BlobHeader *h = (BlobHeader *)loan.header;
    h->seq = seq;
    h->len = e->bytes;
    for (size_t k = 0; k < 64; k++) {
        loan.data[k] = (uint8_t)(seq + k);
        loan.data[e->bytes - 64 + k] = (uint8_t)(seq + k + 1);
    }
    OK(nerve_loan_send(&loan), "send");
}

/* Receives the next message (spinning or blocking) and returns its seq, checked. */
static uint64_t recv_msg(Ends *e) {
    int64_t wait = e->blocking ? TIMEOUT_NS : 0;
    uint64_t deadline = now_ns() + (uint64_t)TIMEOUT_NS;
    for (uint64_t spins = 0;; spins++) {
        int rc;
        uint64_t seq = 0;
        if (e->bytes == 16) {
            Ping16 m;
            size_t len = 0;
            rc = nerve_recv(e->sub, wait, (uint8_t *)&m, sizeof m, &len);
            if (rc == NERVE_OK) {
                if (m.check != (m.seq ^ CHECK_WORD)) die("a corrupt Ping16");
                return m.seq;
            }
        } else {
            nerve_sample s;
            rc = nerve_recv_sample(e->sub, wait, &s);
            if (rc == NERVE_OK) {
                const BlobHeader *h = (const BlobHeader *)s.header;
                seq = h->seq;
                if (h->len != e->bytes || s.data_len != e->bytes) die("a Blob of the wrong length");
                if (seq != STOP) {
                    for (size_t k = 0; k < 64; k++) {
                        if (s.data[k] != (uint8_t)(seq + k) ||
                            s.data[e->bytes - 64 + k] != (uint8_t)(seq + k + 1))
                            die("a corrupt Blob");
                    }
                }
                OK(nerve_sample_release(&s), "release");
                return seq;
            }
        }
        if (rc < 0) die("receive");
        if (e->blocking || (spins % 4096 == 0 && now_ns() > deadline)) {
            fprintf(stderr, "pingpong.c: nothing for 5 s\n");
            exit(1);
        }
    }
}

static void open_ends(Ends *e, const char *prefix, const char *out, const char *in) {
    nerve_type t;
    OK(e->bytes == 16 ? Ping16_nerve_type(&t) : BlobHeader_nerve_type(&t), "declare");
    nerve_topic_options o = nerve_topic_options_default();
    o.depth = 4;
    if (e->bytes != 16) o.max_message_bytes = e->bytes + 4096;
    char name[256];
    nerve_topic *tout, *tin;
    snprintf(name, sizeof name, "%s/%s", prefix, out);
    OK(nerve_topic_open(name, &t, &o, &tout), "open");
    snprintf(name, sizeof name, "%s/%s", prefix, in);
    OK(nerve_topic_open(name, &t, &o, &tin), "open");
    OK(nerve_subscriber_open(tin, 0, &e->sub), "subscriber");
    OK(nerve_publisher_open(tout, &e->pub), "publisher");
    /* The topics stay open through their endpoints' handles until the process exits. */
}

/* One send + receive of `T` in this thread, `per` times per batch. */
#define LOOP(T, SET, GET)                                                                   \
    do {                                                                                    \
        nerve_type t;                                                                       \
        OK(nerve_msgs_##T##_type(&t), "type");                                              \
        nerve_topic_options o = nerve_topic_options_default();                              \
        o.depth = 16;                                                                       \
        nerve_topic *topic;                                                                 \
        OK(nerve_topic_open(name, &t, &o, &topic), "open");                                 \
        nerve_publisher *pub;                                                               \
        nerve_subscriber *sub;                                                              \
        OK(nerve_publisher_open(topic, &pub), "publisher");                                 \
        OK(nerve_subscriber_open(topic, 0, &sub), "subscriber");                            \
        nerve_msgs_##T m, r;                                                                \
        memset(&m, 0, sizeof m);                                                            \
        uint64_t i = 0;                                                                     \
        for (size_t b = 0; b < batches; b++) {                                              \
            uint64_t t0 = now_ns();                                                         \
            for (size_t k = 0; k < per; k++, i++) {                                         \
                SET = i;                                                                    \
                OK(nerve_publish(pub, (const uint8_t *)&m, sizeof m), "publish");           \
                size_t len = 0;                                                             \
                if (nerve_recv(sub, 0, (uint8_t *)&r, sizeof r, &len) != NERVE_OK || GET != i) \
                    die("send+recv lost a message");                                        \
            }                                                                               \
            out[b] = (double)(now_ns() - t0) / (double)per;                                 \
        }                                                                                   \
    } while (0)

static int loop_main(char **argv) {
    char name[256];
    snprintf(name, sizeof name, "%s/loop", argv[2]);
    size_t batches = strtoull(argv[4], NULL, 10), per = strtoull(argv[5], NULL, 10);
    double *out = malloc(batches * sizeof *out);
    if (out == NULL || per == 0) return 1;
    if (strcmp(argv[3], "CmdVel") == 0) {
        LOOP(CmdVel, m.stamp_ns, r.stamp_ns);
    } else if (strcmp(argv[3], "Imu") == 0) {
        LOOP(Imu, m.header.seq, r.header.seq);
    } else {
        fprintf(stderr, "pingpong.c: %s: C has CmdVel and Imu (no dynamic messages)\n", argv[3]);
        return 3;
    }
    printf("samples");
    for (size_t b = 0; b < batches; b++) printf(" %.2f", out[b]);
    printf("\n");
    free(out);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 7 && strcmp(argv[1], "loop") == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(atoi(argv[6]), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) {
            perror("sched_setaffinity");
            return 1;
        }
        return loop_main(argv);
    }
    if (argc != 8) {
        fprintf(stderr, "usage: pingpong ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>\n");
        return 2;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[7]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        return 1;
    }
    Ends e = {.bytes = (size_t)strtoull(argv[3], NULL, 10), .blocking = strcmp(argv[4], "blocking") == 0};
    if (e.bytes != 16 && e.bytes < 128) {
        fprintf(stderr, "pingpong.c: bytes is 16 or at least 128\n");
        return 2;
    }
    size_t samples = strtoull(argv[5], NULL, 10), warmup = strtoull(argv[6], NULL, 10);
    if (strcmp(argv[1], "echo") == 0) {
        open_ends(&e, argv[2], "pong", "ping");
        printf("ready\n");
        fflush(stdout);
        for (;;) {
            uint64_t seq = recv_msg(&e);
            if (seq == STOP) return 0;
            send_msg(&e, seq);
        }
    }
    open_ends(&e, argv[2], "ping", "pong");
    uint64_t *out = malloc(samples * sizeof *out);
    if (out == NULL) return 1;
    for (size_t i = 0; i < warmup + samples; i++) {
        uint64_t t0 = now_ns();
        send_msg(&e, i);
        if (recv_msg(&e) != i) die("an echo out of order");
        uint64_t t1 = now_ns();
        if (i >= warmup) out[i - warmup] = (t1 - t0) / 2;
    }
    send_msg(&e, STOP);
    printf("samples");
    for (size_t i = 0; i < samples; i++) printf(" %llu", (unsigned long long)out[i]);
    printf("\n");
    free(out);
    return 0;
}
