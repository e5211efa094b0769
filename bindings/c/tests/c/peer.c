/* A C node in the cross-language tests (tests/c_api.rs with Rust, bindings/python/tests/
 * test_c_api.py with Python; tests/c/peer.cpp is the C++ one). Every language's peer sends and
 * checks the same messages, field by field:
 *   <prefix>/imu    nerve's Imu, 50 messages: i-th has header {stamp 1000+i, seq i, "imu_link"},
 *                   orientation {0, 0, 0.5 i, 1}, orientation_covariance[8] 0.25 i,
 *                   angular_velocity.z -i, linear_acceleration.x 9.75,
 *                   linear_acceleration_covariance[0] i;
 *   <prefix>/image  nerve's Image, 10 frames 64 x 48 rgb8: header {stamp 5000+i, seq i,
 *                   "camera"}, step 192, byte k of frame i is (7 k + i) mod 256; received in
 *                   place (the pixels' address lies in the topic's shared memory);
 *   <prefix>/upper  a service: requests are MessagePack strings "hello <i>" (i < 5), answers
 *                   the same upper-cased.
 * Both topics: depth 64, reliable, messages up to 1 MiB.
 *
 *   peer send <prefix>: opens the topics, says "ready", waits for "go" on stdin, sends, calls
 *                       the service, says "sent".
 *   peer recv <prefix>: opens the topics, subscribes, serves the service, says "ready",
 *                       receives and checks everything, says "received", then serves until
 *                       stdin closes. */
#include <stdint.h>
#include "check.h"
#include "nerve/msgs.h"

enum { N_IMU = 50, N_IMAGE = 10, W = 64, H = 48, CALLS = 5 };

static void say(const char *word) {
    printf("%s\n", word);
    fflush(stdout);
}

static nerve_msgs_Imu imu(uint64_t i) {
    nerve_msgs_Imu m;
    memset(&m, 0, sizeof m);
    m.header.stamp_ns = 1000 + i;
    m.header.seq = i;
    strcpy(m.header.frame_id, "imu_link");
    m.orientation.z = 0.5 * (double)i;
    m.orientation.w = 1.0;
    m.orientation_covariance[8] = 0.25 * (double)i;
    m.angular_velocity.z = -(double)i;
    m.linear_acceleration.x = 9.75;
    m.linear_acceleration_covariance[0] = (double)i;
    return m;
}

/* The fields the spec above gives (other fields are each sender's defaults). */
static int imu_matches(const nerve_msgs_Imu *m, uint64_t i) {
    nerve_msgs_Imu w = imu(i);
    return m->header.stamp_ns == w.header.stamp_ns && m->header.seq == w.header.seq &&
           strcmp(m->header.frame_id, w.header.frame_id) == 0 &&
           m->orientation.z == w.orientation.z && m->orientation.w == w.orientation.w &&
           m->orientation_covariance[8] == w.orientation_covariance[8] &&
           m->angular_velocity.z == w.angular_velocity.z &&
           m->linear_acceleration.x == w.linear_acceleration.x &&
           m->linear_acceleration_covariance[0] == w.linear_acceleration_covariance[0];
}

static void open_topics(const char *prefix, nerve_topic **imus, nerve_topic **images) {
    nerve_topic_options o = nerve_topic_options_default();
    o.depth = 64;
    o.reliability = NERVE_RELIABLE;
    o.max_message_bytes = 1 << 20;
    nerve_type imu_t, image_t;
    EXPECT(nerve_msgs_Imu_type(&imu_t), NERVE_OK);
    EXPECT(nerve_msgs_Image_type(&image_t), NERVE_OK);
    char name[256];
    snprintf(name, sizeof name, "%s/imu", prefix);
    EXPECT(nerve_topic_open(name, &imu_t, &o, imus), NERVE_OK);
    snprintf(name, sizeof name, "%s/image", prefix);
    EXPECT(nerve_topic_open(name, &image_t, &o, images), NERVE_OK);
}

/* The service: MessagePack strings upper-cased (the length byte is no ASCII letter). */
static int32_t upper(void *context, const uint8_t *request, size_t len, nerve_reply *reply) {
    (void)context;
    uint8_t out[256];
    if (len > sizeof out) {
        return nerve_reply_error(reply, "request too long");
    }
    for (size_t k = 0; k < len; k++) {
        out[k] = (request[k] >= 'a' && request[k] <= 'z') ? (uint8_t)(request[k] - 32) : request[k];
    }
    return nerve_reply_set(reply, out, len);
}

static int send_all(const char *prefix) {
    nerve_topic *imus = NULL, *images = NULL;
    open_topics(prefix, &imus, &images);
    nerve_publisher *imu_pub = NULL, *image_pub = NULL;
    EXPECT(nerve_publisher_open(imus, &imu_pub), NERVE_OK);
    EXPECT(nerve_publisher_open(images, &image_pub), NERVE_OK);
    char name[256];
    snprintf(name, sizeof name, "%s/upper", prefix);
    nerve_client *client = NULL;
    EXPECT(nerve_client_open(name, NERVE_DOMAIN_DEFAULT, &client), NERVE_OK);
    say("ready");
    char line[16];
    CHECK(fgets(line, sizeof line, stdin) != NULL && strncmp(line, "go", 2) == 0);

    for (uint64_t i = 0; i < N_IMU; i++) {
        nerve_msgs_Imu m = imu(i);
        EXPECT(nerve_publish(imu_pub, (const uint8_t *)&m, sizeof m), NERVE_OK);
    }
    for (uint64_t i = 0; i < N_IMAGE; i++) {
        nerve_loan loan;
        EXPECT(nerve_loan_open(image_pub, W * H * 3, &loan), NERVE_OK);
        nerve_msgs_ImageHeader *h = (nerve_msgs_ImageHeader *)loan.header;
        memset(h, 0, sizeof *h);
        h->header.stamp_ns = 5000 + i;
        h->header.seq = i;
        strcpy(h->header.frame_id, "camera");
        h->width = W;
        h->height = H;
        h->step = W * 3;
        h->encoding = 1; /* rgb8 */
        nerve_msgs_Image_elem *px = loan.data;
        for (size_t k = 0; k < loan.data_len; k++) {
            px[k] = (uint8_t)(7 * k + i);
        }
        EXPECT(nerve_loan_send(&loan), NERVE_OK);
    }
    for (int i = 0; i < CALLS; i++) {
        uint8_t req[32], resp[32], want[32];
        int n = snprintf((char *)req + 1, sizeof req - 1, "hello %d", i);
        req[0] = (uint8_t)(0xa0 | n); /* a MessagePack fixstr */
        snprintf((char *)want + 1, sizeof want - 1, "HELLO %d", i);
        want[0] = req[0];
        size_t len = 0;
        EXPECT(nerve_call(client, req, (size_t)n + 1, 5000000000ll, resp, sizeof resp, &len),
               NERVE_OK);
        CHECK(len == (size_t)n + 1 && memcmp(resp, want, len) == 0);
    }
    say("sent");
    EXPECT(nerve_client_close(client), NERVE_OK);
    EXPECT(nerve_publisher_close(imu_pub), NERVE_OK);
    EXPECT(nerve_publisher_close(image_pub), NERVE_OK);
    EXPECT(nerve_topic_close(imus), NERVE_OK);
    EXPECT(nerve_topic_close(images), NERVE_OK);
    return 0;
}

static int recv_all(const char *prefix) {
    nerve_topic *imus = NULL, *images = NULL;
    open_topics(prefix, &imus, &images);
    nerve_subscriber *imu_sub = NULL, *image_sub = NULL;
    EXPECT(nerve_subscriber_open(imus, 0, &imu_sub), NERVE_OK);
    EXPECT(nerve_subscriber_open(images, 0, &image_sub), NERVE_OK);
    char name[256];
    snprintf(name, sizeof name, "%s/upper", prefix);
    nerve_server *server = NULL;
    EXPECT(nerve_server_open(name, NERVE_DOMAIN_DEFAULT, 1, upper, NULL, &server), NERVE_OK);
    say("ready");

    for (uint64_t i = 0; i < N_IMU; i++) {
        nerve_msgs_Imu m;
        size_t len = 0;
        EXPECT(nerve_recv(imu_sub, 10000000000ll, (uint8_t *)&m, sizeof m, &len), NERVE_OK);
        CHECK(len == sizeof m && imu_matches(&m, i));
    }
    for (uint64_t i = 0; i < N_IMAGE; i++) {
        nerve_sample s;
        EXPECT(nerve_recv_sample(image_sub, 10000000000ll, &s), NERVE_OK);
        const nerve_msgs_ImageHeader *h = (const nerve_msgs_ImageHeader *)s.header;
        CHECK(s.header_len == sizeof *h && h->header.stamp_ns == 5000 + i && h->header.seq == i);
        CHECK(strcmp(h->header.frame_id, "camera") == 0 && h->width == W && h->height == H &&
              h->step == W * 3 && h->encoding == 1);
        CHECK(s.data_len == W * H * 3);
        for (size_t k = 0; k < s.data_len; k++) {
            CHECK(s.data[k] == (uint8_t)(7 * k + i));
        }
        char path[512];
        mapping_of(s.data, path, sizeof path);
        CHECK(strstr(path, "nerve-") != NULL); /* zero copy: the publisher's shared memory */
        EXPECT(nerve_sample_release(&s), NERVE_OK);
    }
    say("received");
    char line[16];
    while (fgets(line, sizeof line, stdin) != NULL) {
    }
    EXPECT(nerve_server_close(server), NERVE_OK);
    EXPECT(nerve_subscriber_close(imu_sub), NERVE_OK);
    EXPECT(nerve_subscriber_close(image_sub), NERVE_OK);
    EXPECT(nerve_topic_close(imus), NERVE_OK);
    EXPECT(nerve_topic_close(images), NERVE_OK);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: peer send|recv <prefix>\n");
        return 2;
    }
    return strcmp(argv[1], "send") == 0 ? send_all(argv[2]) : recv_all(argv[2]);
}
