// request_response in C++17: the service `arm/plan` served by a lambda on nerve's threads and
// called by a client; the handler's exception reaches the caller as nerve::Error with its
// message (the same exchange as examples/c/request_response, printing the same lines).
//   cmake -S examples/cpp/request_response -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
//   cmake --build build && ./build/request_response
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "nerve.hpp"

int main() {
    using namespace std::chrono_literals;
    try {
        nerve::Server server("arm/plan", [](std::string_view request) {
            unsigned long steps = 0;
            try {
                steps = std::stoul(std::string(request));
            } catch (const std::exception &) {
                steps = 1000;
            }
            if (steps > 100) {
                throw std::invalid_argument("steps must be a number up to 100");
            }
            return "plan: " + std::to_string(steps) + " steps";
        });
        nerve::Client client("arm/plan");
        for (const char *request : {"3", "12", "500"}) {
            try {
                std::printf("%s -> %s\n", request, client.call(request, 1s).c_str());
            } catch (const nerve::Error &e) {
                if (e.code() != NERVE_E_HANDLER) {
                    throw;
                }
                std::printf("%s -> refused: %s\n", request, e.what());
            }
        }
    } catch (const nerve::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
