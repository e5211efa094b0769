/* Fixed messages from C: a plain struct published and received 1000 times, every byte checked,
 * the counters read back. */
#include <stdint.h>
#include "check.h"

typedef struct {
    double x, y, z;
    uint64_t seq;
} Point;

static const nerve_type POINT = {
    .name = "test_c/Point",
    .kind = NERVE_KIND_FIXED,
    .size = sizeof(Point),
    .align = _Alignof(Point),
    .elem_size = 0,
    .layout_hash = 0x5043a11ce0000001ull,
    .description = NULL,
    .description_len = 0,
};

int main(void) {
    nerve_topic_options options = nerve_topic_options_default();
    options.depth = 2048;
    options.reliability = NERVE_RELIABLE;
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open("test_c/points", &POINT, &options, &topic), NERVE_OK);
    nerve_publisher *pub = NULL;
    nerve_subscriber *sub = NULL;
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_OK);
    EXPECT(nerve_subscriber_open(topic, 0, &sub), NERVE_OK);

    Point got;
    size_t len = 0;
    EXPECT(nerve_recv(sub, 0, (uint8_t *)&got, sizeof got, &len), NERVE_EMPTY);
    EXPECT(nerve_recv(sub, 1000000, (uint8_t *)&got, sizeof got, &len), NERVE_EMPTY);

    for (uint64_t i = 0; i < 1000; i++) {
        Point p = {.x = (double)i, .y = -(double)i, .z = 0.5 * (double)i, .seq = i};
        EXPECT(nerve_publish(pub, (const uint8_t *)&p, sizeof p), NERVE_OK);
    }
    for (uint64_t i = 0; i < 1000; i++) {
        EXPECT(nerve_recv(sub, -1, (uint8_t *)&got, sizeof got, &len), NERVE_OK);
        CHECK(len == sizeof(Point));
        CHECK(got.seq == i && got.x == (double)i && got.y == -(double)i &&
              got.z == 0.5 * (double)i);
    }
    nerve_subscriber_stats stats;
    EXPECT(nerve_subscriber_get_stats(sub, &stats), NERVE_OK);
    CHECK(stats.received == 1000 && stats.lost == 0 && stats.dropped == 0 && stats.corrupt == 0);

    /* A second handle on the topic, joined by name, sees the same messages. */
    nerve_topic *joined = NULL;
    EXPECT(nerve_topic_join("test_c/points", NERVE_DOMAIN_DEFAULT, &joined), NERVE_OK);
    nerve_subscriber *sub2 = NULL;
    EXPECT(nerve_subscriber_open(joined, 0, &sub2), NERVE_OK);
    Point p = {.seq = 4242};
    EXPECT(nerve_publish(pub, (const uint8_t *)&p, sizeof p), NERVE_OK);
    EXPECT(nerve_recv(sub2, -1, (uint8_t *)&got, sizeof got, &len), NERVE_OK);
    CHECK(got.seq == 4242);

    EXPECT(nerve_subscriber_close(sub2), NERVE_OK);
    EXPECT(nerve_topic_close(joined), NERVE_OK);
    EXPECT(nerve_subscriber_close(sub), NERVE_OK);
    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    EXPECT(nerve_topic_close(topic), NERVE_OK);

    /* An in-process topic: this process's threads only, so another process cannot join it
     * (and neither can a join by name, which looks in shared memory). 2 is neither 0 nor 1. */
    nerve_topic_options local = nerve_topic_options_default();
    local.in_process = 2;
    EXPECT(nerve_topic_open("test_c/local", &POINT, &local, &topic), NERVE_E_INVALID_ARGUMENT);
    local.in_process = 1;
    EXPECT(nerve_topic_open("test_c/local", &POINT, &local, &topic), NERVE_OK);
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_OK);
    EXPECT(nerve_subscriber_open(topic, 0, &sub), NERVE_OK);
    p.seq = 7;
    EXPECT(nerve_publish(pub, (const uint8_t *)&p, sizeof p), NERVE_OK);
    EXPECT(nerve_recv(sub, -1, (uint8_t *)&got, sizeof got, &len), NERVE_OK);
    CHECK(got.seq == 7);
    EXPECT(nerve_subscriber_close(sub), NERVE_OK);
    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    EXPECT(nerve_topic_close(topic), NERVE_OK);
    printf("fixed: 1000 messages checked\n");
    return 0;
}
