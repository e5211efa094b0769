// The C++ node of the cross-language tests: what tests/c/peer.c does (the messages, topics
// and service are described there), through nerve.hpp and the generated nerve/msgs.hpp.
//   peer send <prefix> | peer recv <prefix>
#include <cstring>
#include <iostream>
#include <string>

#include "check.h"
#include "nerve/msgs.hpp"

namespace {

using namespace std::chrono_literals;
using nerve::msgs::Image;
using nerve::msgs::Imu;

constexpr uint64_t N_IMU = 50, N_IMAGE = 10, W = 64, H = 48, CALLS = 5;

void say(const char *word) { std::cout << word << std::endl; }

Imu imu(uint64_t i) {
    Imu m{};
    m.header.stamp_ns = 1000 + i;
    m.header.seq = i;
    std::strcpy(m.header.frame_id, "imu_link");
    m.orientation.z = 0.5 * double(i);
    m.orientation.w = 1.0;
    m.orientation_covariance[8] = 0.25 * double(i);
    m.angular_velocity.z = -double(i);
    m.linear_acceleration.x = 9.75;
    m.linear_acceleration_covariance[0] = double(i);
    return m;
}

bool imu_matches(const Imu &m, uint64_t i) {
    Imu w = imu(i);
    return m.header.stamp_ns == w.header.stamp_ns && m.header.seq == w.header.seq &&
           std::strcmp(m.header.frame_id, w.header.frame_id) == 0 &&
           m.orientation.z == w.orientation.z && m.orientation.w == w.orientation.w &&
           m.orientation_covariance[8] == w.orientation_covariance[8] &&
           m.angular_velocity.z == w.angular_velocity.z &&
           m.linear_acceleration.x == w.linear_acceleration.x &&
           m.linear_acceleration_covariance[0] == w.linear_acceleration_covariance[0];
}

nerve::Options options() { return nerve::Options().depth(64).reliable().max_message_bytes(1 << 20); }

std::string upper(std::string_view s) {
    std::string out(s);
    for (char &c : out) {
        if (c >= 'a' && c <= 'z') {
            c = char(c - 32);
        }
    }
    return out;
}

int send_all(const std::string &prefix) {
    nerve::Topic<Imu> imus(prefix + "/imu", options());
    nerve::Topic<Image> images(prefix + "/image", options());
    auto imu_pub = imus.publisher();
    auto image_pub = images.publisher();
    nerve::Client client(prefix + "/upper");
    say("ready");
    std::string line;
    CHECK(std::getline(std::cin, line) && line == "go");
    for (uint64_t i = 0; i < N_IMU; i++) {
        imu_pub.send(imu(i));
    }
    for (uint64_t i = 0; i < N_IMAGE; i++) {
        auto loan = image_pub.loan(W * H * 3);
        auto &h = loan.header();
        h = nerve::msgs::ImageHeader{};
        h.header.stamp_ns = 5000 + i;
        h.header.seq = i;
        std::strcpy(h.header.frame_id, "camera");
        h.width = W;
        h.height = H;
        h.step = W * 3;
        h.encoding = 1;  // rgb8
        auto px = loan.data();
        for (std::size_t k = 0; k < px.size(); k++) {
            px[k] = uint8_t(7 * k + i);
        }
        loan.send();
    }
    for (uint64_t i = 0; i < CALLS; i++) {
        std::string text = "hello " + std::to_string(i);
        std::string req = char(0xa0 | text.size()) + text;  // a MessagePack fixstr
        CHECK(client.call(req, 5s) == upper(req));
    }
    say("sent");
    return 0;
}

int recv_all(const std::string &prefix) {
    nerve::Topic<Imu> imus(prefix + "/imu", options());
    nerve::Topic<Image> images(prefix + "/image", options());
    auto imu_sub = imus.subscriber();
    auto image_sub = images.subscriber();
    nerve::Server server(prefix + "/upper", upper);
    say("ready");
    for (uint64_t i = 0; i < N_IMU; i++) {
        auto m = imu_sub.recv_for(10s);
        CHECK(m && imu_matches(*m, i));
    }
    for (uint64_t i = 0; i < N_IMAGE; i++) {
        auto s = image_sub.recv_sample_for(10s);
        CHECK(s.has_value());
        const auto &h = s->header();
        CHECK(h.header.stamp_ns == 5000 + i && h.header.seq == i &&
              std::strcmp(h.header.frame_id, "camera") == 0 && h.width == W && h.height == H &&
              h.step == W * 3 && h.encoding == 1);
        auto px = s->data();
        CHECK(px.size() == W * H * 3);
        for (std::size_t k = 0; k < px.size(); k++) {
            CHECK(px[k] == uint8_t(7 * k + i));
        }
        char path[512];
        mapping_of(px.data(), path, sizeof path);
        CHECK(std::strstr(path, "nerve-") != nullptr);  // zero copy
    }
    say("received");
    std::string line;
    while (std::getline(std::cin, line)) {
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: peer send|recv <prefix>\n";
        return 2;
    }
    try {
        return std::strcmp(argv[1], "send") == 0 ? send_all(argv[2]) : recv_all(argv[2]);
    } catch (const nerve::Error &e) {
        std::cerr << "nerve error: " << e.what() << "\n";
        return 1;
    }
}
