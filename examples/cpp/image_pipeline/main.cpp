// image_pipeline in C++17: frames loaned, filled in place and sent; received in place as
// spans over shared memory (zero copy), released when the Sample goes out of scope.
//   cmake -S examples/cpp/image_pipeline -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
//   cmake --build build && ./build/image_pipeline
#include <chrono>
#include <cstdio>

#include "nerve.hpp"

struct FrameHeader {
    uint32_t width, height;
    uint64_t seq;
};
// A frame: this header, then mono8 pixels (the same type as examples/c/image_pipeline's).
NERVE_CHUNKED(FrameHeader, uint8_t, "demo/Frame", 0xde3f7a3e00000001ull);
using Frame = nerve::Chunked<FrameHeader, uint8_t>;

int main() {
    using namespace std::chrono_literals;
    try {
        nerve::Topic<Frame> topic("camera/frames",
                                  nerve::Options().reliable().depth(4).max_message_bytes(1 << 20));
        auto pub = topic.publisher();
        auto sub = topic.subscriber();
        for (uint64_t i = 0; i < 5; i++) {
            auto loan = pub.loan(640 * 480);
            loan.header() = FrameHeader{640, 480, i};
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
                            (unsigned long long)frame->header().seq, frame->header().width,
                            frame->header().height, sum);
            }
        }
    } catch (const nerve::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
