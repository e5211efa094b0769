/* image_pipeline in C: 640x480 frames written in place into loaned shared memory and read in
 * place by the subscriber (zero copy: the payload is never copied between the two).
 *   cmake -S examples/c/image_pipeline -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
 *   cmake --build build && ./build/image_pipeline */
#include <stdint.h>
#include <stdio.h>
#include "nerve/msgs.h"

/* A frame: nerve's standard Image (the same type as Rust's and Python's), 640x480 mono8. */

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, nerve_last_error());
    return 1;
}

int main(void) {
    nerve_type image;
    if (nerve_msgs_Image_type(&image) != NERVE_OK) return fail("Image");
    nerve_topic_options options = nerve_topic_options_default();
    options.depth = 4;
    options.reliability = NERVE_RELIABLE;
    options.max_message_bytes = 1u << 20;
    nerve_topic *topic;
    if (nerve_topic_open("camera/frames", &image, &options, &topic) != NERVE_OK)
        return fail("open camera/frames");
    nerve_publisher *pub;
    nerve_subscriber *sub;
    if (nerve_publisher_open(topic, &pub) != NERVE_OK) return fail("publisher");
    if (nerve_subscriber_open(topic, 0, &sub) != NERVE_OK) return fail("subscriber");
    for (uint64_t i = 0; i < 5; i++) {
        nerve_loan loan;
        if (nerve_loan_open(pub, 640 * 480, &loan) != NERVE_OK) return fail("loan");
        nerve_msgs_ImageHeader *header = (nerve_msgs_ImageHeader *)loan.header;
        *header = (nerve_msgs_ImageHeader){.header = {.seq = i, .frame_id = "camera"},
                                           .width = 640, .height = 480, .step = 640,
                                           .encoding = 5 /* mono8 */};
        for (size_t p = 0; p < loan.data_len; p++) loan.data[p] = (uint8_t)(p + i);
        if (nerve_loan_send(&loan) != NERVE_OK) return fail("send");

        nerve_sample frame;
        if (nerve_recv_sample(sub, 1000000000, &frame) != NERVE_OK) return fail("receive");
        const nerve_msgs_ImageHeader *h = (const nerve_msgs_ImageHeader *)frame.header;
        unsigned long sum = 0;
        for (size_t p = 0; p < frame.data_len; p++) sum += frame.data[p];
        printf("frame %llu: %ux%u, pixel sum %lu\n", (unsigned long long)h->header.seq, h->width,
               h->height, sum);
        nerve_sample_release(&frame);
    }
    nerve_subscriber_close(sub);
    nerve_publisher_close(pub);
    nerve_topic_close(topic);
    return 0;
}
