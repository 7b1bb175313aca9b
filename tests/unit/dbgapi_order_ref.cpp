// SPDX-License-Identifier: MIT
// Reference for test_dbgapi_order: the iteration order of a libstdc++ std::unordered_map keyed
// as AMD's library keys its waves and agents (a one-field handle struct hashed by its value),
// after inserting FIRST, FIRST + 1, ..., FIRST + N - 1 in that order. Prints each visited key's
// insertion index, one per line. Usage: dbgapi_order_ref FIRST N
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <tuple>
#include <unordered_map>

namespace {
struct handle {
    std::uint64_t value;
    bool operator==(const handle &o) const { return value == o.value; }
};
struct handle_hash {
    std::size_t operator()(const handle &h) const noexcept
    {
        return std::hash<std::uint64_t>{}(h.value);
    }
};
} // namespace

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    std::uint64_t first = std::strtoull(argv[1], nullptr, 0);
    std::uint64_t n = std::strtoull(argv[2], nullptr, 0);
    std::unordered_map<handle, std::unique_ptr<std::uint64_t>, handle_hash> map;

    for (std::uint64_t i = 0; i < n; i++)
        map.emplace(std::piecewise_construct, std::forward_as_tuple(handle{ first + i }),
                    std::forward_as_tuple(new std::uint64_t(i)));
    for (const auto &kv : map)
        std::printf("%llu\n", static_cast<unsigned long long>(*kv.second));
    return 0;
}
