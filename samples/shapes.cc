// shapes.cc: a C++ render farm.  Worker std::threads draw shapes through
// virtual calls; the shared statistics are guarded by a std::mutex, except in
// Circle::draw, which bumps the pixel counter directly.  The scene starts
// with a circle, so every worker's first update is unsynchronised.
//
// EXPECT: race
// EXPECT-CURRENT: Circle::draw render_all
// EXPECT-PREVIOUS: Stats::add|Circle::draw render_all
// EXPECT-LOCATION: global stats
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

struct Stats {
  std::mutex lock;
  long pixels = 0;
  long shapes = 0;
  __attribute__((noinline)) void add(long p) {
    std::lock_guard<std::mutex> g(lock);
    pixels += p;
    shapes++;
  }
};
Stats stats;

struct Shape {
  virtual ~Shape() = default;
  virtual long draw() = 0;
};

struct Square : Shape {
  long side;
  explicit Square(long s) : side(s) {}
  __attribute__((noinline)) long draw() override {
    long area = side * side;
    stats.add(area);
    return area;
  }
};

struct Circle : Shape {
  long radius;
  explicit Circle(long r) : radius(r) {}
  __attribute__((noinline)) long draw() override {
    long area = 3 * radius * radius;
    stats.pixels += area;  // BUG: no lock
    return area;
  }
};

__attribute__((noinline)) static long render_all(const std::vector<std::unique_ptr<Shape>> &scene) {
  long total = 0;
  for (const auto &s : scene) total += s->draw();
  return total;
}

int main() {
  std::vector<std::unique_ptr<Shape>> scene;
  for (int i = 0; i < 20; i++) {
    if (i % 3 == 0)
      scene.push_back(std::make_unique<Circle>(i + 1));
    else
      scene.push_back(std::make_unique<Square>(i + 1));
  }
  std::vector<std::thread> workers;
  std::vector<long> totals(4);
  for (int w = 0; w < 4; w++)
    workers.emplace_back([&scene, &totals, w] { totals[w] = render_all(scene); });  // CREATE-HERE
  for (auto &t : workers) t.join();
  std::printf("pixels %ld shapes %ld\n", stats.pixels, stats.shapes);
  return 0;
}
