/* Chunked messages from C: 6 MB images loaned, filled in place and sent; received in place
 * (the sample's pointer lies in the topic's shared-memory file, read from /proc/self/maps),
 * every byte checked; loans and samples refused once sent or released. */
#include <stdint.h>
#include "check.h"

typedef struct {
    uint32_t width, height;
    uint64_t seq;
} FrameHeader;

static const nerve_type FRAME = {
    .name = "test_c/Frame",
    .kind = NERVE_KIND_CHUNKED,
    .size = sizeof(FrameHeader),
    .align = _Alignof(FrameHeader),
    .elem_size = 1,
    .layout_hash = 0xf4a3e00000000004ull,
};

enum { W = 1920, H = 1080 * 3, FRAMES = 20 };

int main(void) {
    nerve_topic_options options = nerve_topic_options_default();
    options.depth = 4;
    options.reliability = NERVE_RELIABLE;
    options.max_message_bytes = 8u << 20;
    options.chunks = 16; /* the pool, sized here (2 x depth + 8, the default) */
    nerve_topic *topic = NULL;
    EXPECT(nerve_topic_open("test_c/frames", &FRAME, &options, &topic), NERVE_OK);
    nerve_publisher *pub = NULL;
    nerve_subscriber *sub = NULL;
    EXPECT(nerve_publisher_open(topic, &pub), NERVE_OK);
    EXPECT(nerve_subscriber_open(topic, 0, &sub), NERVE_OK);

    for (uint64_t i = 0; i < FRAMES; i++) {
        nerve_loan loan;
        EXPECT(nerve_loan_open(pub, (size_t)W * H, &loan), NERVE_OK);
        CHECK(loan.header_len == sizeof(FrameHeader) && loan.data_len == (size_t)W * H);
        CHECK(((uintptr_t)loan.data & 63) == 0);
        FrameHeader *h = (FrameHeader *)loan.header;
        h->width = W;
        h->height = H;
        h->seq = i;
        for (size_t k = 0; k < loan.data_len; k++) {
            loan.data[k] = (uint8_t)(k * 7 + i);
        }
        nerve_loan again = loan;
        EXPECT(nerve_loan_send(&loan), NERVE_OK);
        CHECK(loan.owner == NULL && loan.data == NULL);
        /* A copy of a sent loan is refused. */
        EXPECT(nerve_loan_send(&again), NERVE_E_CLOSED);
        SAYS("already sent");

        nerve_sample s;
        EXPECT(nerve_recv_sample(sub, -1, &s), NERVE_OK);
        const FrameHeader *got = (const FrameHeader *)s.header;
        CHECK(s.header_len == sizeof(FrameHeader) && got->seq == i && got->width == W);
        CHECK(s.data_len == (size_t)W * H);
        for (size_t k = 0; k < s.data_len; k++) {
            if (s.data[k] != (uint8_t)(k * 7 + i)) {
                fprintf(stderr, "frame %llu byte %zu differs\n", (unsigned long long)i, k);
                return 1;
            }
        }
        if (i == 0) {
            char path[512];
            mapping_of(s.data, path, sizeof path);
            /* Zero copy: the payload is read where the publisher wrote it. */
            CHECK(strstr(path, "nerve-") != NULL);
            printf("chunked: the sample's payload lies in %s\n", path);
        }
        nerve_sample copy = s;
        EXPECT(nerve_sample_release(&s), NERVE_OK);
        EXPECT(nerve_sample_release(&s), NERVE_E_CLOSED);
        EXPECT(nerve_sample_release(&copy), NERVE_E_CLOSED);
        SAYS("already sent, discarded or released");
    }

    /* A discarded loan publishes nothing. */
    nerve_loan loan;
    EXPECT(nerve_loan_open(pub, 64, &loan), NERVE_OK);
    EXPECT(nerve_loan_discard(&loan), NERVE_OK);
    nerve_sample s;
    EXPECT(nerve_recv_sample(sub, 1000000, &s), NERVE_EMPTY);
    /* Not whole elements / the wrong call for the kind. */
    uint8_t buf[16];
    size_t len;
    EXPECT(nerve_recv(sub, 0, buf, sizeof buf, &len), NERVE_EMPTY);
    EXPECT(nerve_loan_open(pub, 64, NULL), NERVE_E_INVALID_ARGUMENT);
    EXPECT(nerve_publish(pub, buf, sizeof buf), NERVE_E_WRONG_SIZE);
    EXPECT(nerve_loan_open(pub, (size_t)64 << 20, &loan), NERVE_E_TOO_LARGE);

    /* A sample still held when its subscriber closes: released by the close, refused after. */
    EXPECT(nerve_loan_open(pub, 64, &loan), NERVE_OK);
    EXPECT(nerve_loan_send(&loan), NERVE_OK);
    EXPECT(nerve_recv_sample(sub, -1, &s), NERVE_OK);
    EXPECT(nerve_subscriber_close(sub), NERVE_OK);
    EXPECT(nerve_sample_release(&s), NERVE_E_CLOSED);
    SAYS("subscriber was closed");

    EXPECT(nerve_publisher_close(pub), NERVE_OK);
    EXPECT(nerve_topic_close(topic), NERVE_OK);
    printf("chunked: %d frames of %d bytes checked\n", FRAMES, W * H);
    return 0;
}
