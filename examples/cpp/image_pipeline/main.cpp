// image_pipeline in C++17: frames loaned, filled in place and sent; received in place as
// spans over shared memory (zero copy), released when the Sample goes out of scope.
//   cmake -S examples/cpp/image_pipeline -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
//   cmake --build build && ./build/image_pipeline
#include <chrono>
#include <cstdio>

#include "nerve/msgs.hpp"

// A frame: nerve's standard Image (the same type as Rust's, Python's and
// examples/c/image_pipeline's), 640x480 mono8.
using nerve::msgs::Image;
using nerve::msgs::ImageHeader;

int main() {
    using namespace std::chrono_literals;
    try {
        nerve::Topic<Image> topic("camera/frames",
                                  nerve::Options().reliable().depth(4).max_message_bytes(1 << 20));
        auto pub = topic.publisher();
        auto sub = topic.subscriber();
        for (uint64_t i = 0; i < 5; i++) {
            auto loan = pub.loan(640 * 480);
            ImageHeader &header = loan.header();
            header = ImageHeader{};
            header.header.seq = i;
            header.width = 640;
            header.height = 480;
            header.step = 640;
            header.encoding = 5;  // mono8
            auto pixels = loan.data();
            for (std::size_t p = 0; p < pixels.size(); p++) {
                pixels[p] = uint8_t(p + i);
            }
            loan.send();
            if (auto frame = sub.recv_sample_for(1s)) {
                unsigned long sum = 0;
                for (uint8_t px : frame->data()) {
                    sum += px;
                }
                std::printf("frame %llu: %ux%u, pixel sum %lu\n",
                            (unsigned long long)frame->header().header.seq, frame->header().width,
                            frame->header().height, sum);
            }
        }
    } catch (const nerve::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
