/* Misuse from C gets a status and a message, never undefined behaviour: NULL arguments, a
 * handle closed twice or used after close, a wrong size, a buffer too small, another type on
 * the same topic, a topic that does not exist. Run under ASan and UBSan. */
#include <stdint.h>
#include "check.h"

typedef struct {
    uint32_t a, b;
} Pair;

static const nerve_type PAIR = {
    .name = "test_c/Pair",
    .kind = NERVE_KIND_FIXED,
    .size = sizeof(Pair),
    .align = _Alignof(Pair),
    .layout_hash = 0x9a1400000000002ull,
};

static const nerve_type TRIPLE = {
    .name = "test_c/Triple",
    .kind = NERVE_KIND_FIXED,
    .size = 12,
    .align = 4,
    .layout_hash = 0x7419000000000003ull,
};

int main(void) {
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open(NULL, &PAIR, NULL, &topic), NERVE_E_INVALID_ARGUMENT);
    SAYS("name is NULL");
    EXPECT(nerve_topic_open("test_c/pairs", NULL, NULL, &topic), NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_topic_open("test_c/pairs", &PAIR, NULL, NULL), NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_topic_open("bad name!", &PAIR, NULL, &topic), NERVE_E_INVALID_ARGUMENT);
    nerve_topic_options bad = nerve_topic_options_default();
    bad.reliability = 7;
    EXPECT(nerve_topic_open("test_c/pairs", &PAIR, &bad, &topic), NERVE_E_INVALID_ARGUMENT);
    SAYS("reliability 7");

    EXPECT(nerve_topic_open("test_c/pairs", &PAIR, NULL, &topic), NERVE_OK);
    /* The same topic with another type: loud, naming both. */
    nerve_topic *other = NULL;
    EXPECT(nerve_topic_open("test_c/pairs", &TRIPLE, NULL, &other), NERVE_E_TYPE_MISMATCH);
    SAYS("test_c/Pair");
    SAYS("test_c/Triple");
    EXPECT(nerve_topic_join("test_c/nowhere", NERVE_DOMAIN_DEFAULT, &other), NERVE_E_NOT_FOUND);
    SAYS("test_c/nowhere");

    nerve_publisher *pub = NULL;
    nerve_subscriber *sub = NULL;
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_OK);
    EXPECT(nerve_subscriber_open(topic, 0, &sub), NERVE_OK);
    EXPECT(nerve_publish(NULL, (const uint8_t *)"12345678", 8), NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_publish(pub, NULL, 8), NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_publish(pub, (const uint8_t *)"123", 3), NERVE_E_WRONG_SIZE);
    SAYS("test_c/Pair");
    /* A handle of another kind is refused, not reinterpreted. */
    EXPECT(nerve_publish((const nerve_publisher *)sub, (const uint8_t *)"12345678", 8),
           NERVE_E_INVALID_ARGUMENT);
    SAYS("not a publisher");

    Pair p = {1, 2};
    EXPECT(nerve_publish(pub, (const uint8_t *)&p, sizeof p), NERVE_OK);
    uint8_t small[4];
    size_t len = 0;
    EXPECT(nerve_recv(sub, -1, small, sizeof small, &len), NERVE_E_BUFFER_TOO_SMALL);
    CHECK(len == sizeof(Pair));
    EXPECT(nerve_recv(sub, 0, small, sizeof small, NULL), NERVE_E_INVALID_ARGUMENT);

    /* Closed twice, used after close. */
    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    EXPECT(nerve_publisher_close(pub), NERVE_E_CLOSED);
    EXPECT(nerve_publish(pub, (const uint8_t *)&p, sizeof p), NERVE_E_CLOSED);
    SAYS("publisher was closed");
    EXPECT(nerve_subscriber_close(sub), NERVE_OK);
    EXPECT(nerve_recv(sub, 0, small, sizeof small, &len), NERVE_E_CLOSED);
    EXPECT(nerve_topic_close(topic), NERVE_OK);
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_E_CLOSED);
    EXPECT(nerve_topic_close(NULL), NERVE_E_INVALID_ARGUMENT);
    printf("misuse: every case refused with its status\n");
    return 0;
}
