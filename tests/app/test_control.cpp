// The command language (parsing and parameter changes, pure) and the control channel's
// reader thread on a FIFO (writers come and go), a tailed file, bad lines and overflow.
#include "app/input/chain_editor.h"
#include "app/input/commands.h"
#include "app/input/control_channel.h"
#include "support/chains.h"
#include "support/clips.h"
#include "support/threads.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>

namespace vp {
namespace {

Command parse(const std::string& line) {
  auto c = parseCommand(line);
  if (!c) throw std::logic_error("no command in '" + line + "'");
  return *c;
}

TEST(ControlParse, ParameterCommands) {
  Command c = parse("mode blur");
  EXPECT_EQ(c.verb, Verb::Mode);
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.arg, "blur");
  EXPECT_EQ(parse("  MODE   None ").arg, "none");
  // A filter's word is the generic command it stands for.
  c = parse("k 12");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.arg, "12");
  EXPECT_EQ(c.target, "kmeans");  // a shorthand for the first kmeans's k
  EXPECT_EQ(c.option, "k");
  EXPECT_EQ(c, parse("set kmeans.k 12"));
  EXPECT_EQ(parse("clusters 3"), parse("k 3"));
  c = parse("radius 0");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.target, "blur");
  EXPECT_EQ(c.option, "r");
  EXPECT_EQ(c.arg, "0");
  EXPECT_EQ(parse("radius +2"), parse("add blur.r +2"));
  EXPECT_EQ(parse("passes 3").arg, "3");
  EXPECT_EQ(parse("passes cycle"), parse("cycle blur.passes"));
  c = parse("border wrap");
  EXPECT_EQ(c, parse("set blur.border wrap"));
  c = parse("view Boundaries");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.arg, "boundaries");
  EXPECT_EQ(c.target, "");  // the first element that has a view: kmeans or slic
  EXPECT_EQ(c.option, "view");
  EXPECT_EQ(parse("view cycle").change, Change::Cycle);
  EXPECT_EQ(parse("edges-overlay"), parse("set edges.overlay 1"));
  EXPECT_EQ(parse("edges-overlay off"), parse("set edges.overlay 0"));
  EXPECT_EQ(parse("edges-overlay toggle"), parse("cycle edges.overlay"));
  EXPECT_EQ(parse("k-auto"), parse("auto kmeans.k on"));
  EXPECT_EQ(parse("k-auto toggle").change, Change::Toggle);
  c = parse("iterations 1000\r");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.arg, "1000");
  EXPECT_EQ(c.text, "iterations 1000");
  // Bounds come from the option: a bad value fails when the line is read.
  EXPECT_THROW(parse("radius 129"), std::invalid_argument);
  EXPECT_THROW(parse("passes 0"), std::invalid_argument);
  EXPECT_THROW(parse("border sideways"), std::invalid_argument);
  EXPECT_THROW(parse("sigma cycle"), std::invalid_argument);  // a real number: set or add
  EXPECT_THROW(parse("edges-overlay maybe"), std::invalid_argument);
  EXPECT_THROW(parse("radius"), std::invalid_argument);
  EXPECT_THROW(parse("radius 1 2"), std::invalid_argument);
}

TEST(ControlParse, PlaybackCommands) {
  EXPECT_EQ(parse("pause").verb, Verb::Pause);
  EXPECT_EQ(parse("pause").value, 1);
  EXPECT_EQ(parse("resume"), parse("pause off"));
  EXPECT_EQ(parse("pause toggle").change, Change::Toggle);
  EXPECT_EQ(parse("step").verb, Verb::Step);
  EXPECT_EQ(parse("quit").verb, Verb::Quit);
  Command c = parse("seek 12.5");
  EXPECT_EQ(c.verb, Verb::Seek);
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.seekUs, 12'500'000);
  c = parse("seek +3");
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.seekUs, 3'000'000);
  c = parse("seek -0.25");
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.seekUs, -250'000);
  c = parse("screenshot");
  EXPECT_EQ(c.verb, Verb::Screenshot);
  EXPECT_TRUE(c.path.empty());
  EXPECT_EQ(parse("screenshot /tmp/my shot.png ").path, "/tmp/my shot.png");
}

// The key-action names of earlier versions are aliases of whole commands.
TEST(ControlParse, KeyActionsByConfigName) {
  EXPECT_EQ(parse("k_inc"), parse("k +1"));
  EXPECT_EQ(parse("toggle-hud"), parse("hud"));
  EXPECT_EQ(parse("toggle_pause"), parse("pause toggle"));
  Command c = parse("seek_back_60");
  EXPECT_EQ(c.verb, Verb::Seek);
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.seekUs, -60'000'000);
  EXPECT_EQ(parse("seek_fwd_5").seekUs, 5'000'000);
  EXPECT_EQ(parse("k_inc").text, "k +1");  // an alias names the command it stands for
}

TEST(ControlParse, RelativeSteps) {
  Command c = parse("k -1");
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.step, -1);
  EXPECT_EQ(parse("radius +10").step, 10);
  EXPECT_EQ(parse("iterations +1"), parse("add kmeans.iterations 1"));  // every number word steps
  EXPECT_EQ(parse("passes -1").step, -1);
  EXPECT_EQ(parse("param -2").value, -2);
  EXPECT_EQ(parse("passes cycle").change, Change::Cycle);
  EXPECT_EQ(parse("mode cycle").change, Change::Cycle);
  EXPECT_EQ(parse("border cycle").change, Change::Cycle);
}

TEST(ControlParse, BlankLinesAndComments) {
  EXPECT_FALSE(parseCommand(""));
  EXPECT_FALSE(parseCommand("   \t"));
  EXPECT_FALSE(parseCommand("# k 4"));
}

TEST(ControlParse, BadLinesSayWhy) {
  for (const char* bad : {"k",          "k 0",      "k 33",
                          "k 4x",       "k 4 5",    "k +x",
                          "radius 129", "passes 0", "iterations 1001",
                          "mode fast",  "mode",     "border mirror",
                          "seek",       "seek x",   "seek +",
                          "seek 1e99",  "seek nan", "pause now",
                          "quit 1",     "warp 9",   "k_inc 2",
                          "param 3",    "iterations +x", "passes 1.5",
                          "view rainbow", "view", "view labels 2",
                          "\x01\x02"}) {
    EXPECT_THROW(parseCommand(bad), std::invalid_argument) << bad;
  }
  try {
    parseCommand("k 40");
    FAIL() << "accepted k 40";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "k must be auto|1..32, +N or -N");
  }
  try {
    parseCommand("view rainbow");
    FAIL() << "accepted view rainbow";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "view must be colour, labels, boundaries or cycle");
  }
  try {
    parseCommand("frobnicate 1");
    FAIL() << "accepted frobnicate";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown command 'frobnicate'");
  }
}

TEST(ControlParams, SetAndStepCommandsChangeParams) {
  ChainEditor editor;
  ProcessParams p = test::kmeansParams(KmeansParams{8});
  editor.start(p.chain);
  const auto apply = [&](const char* line) { return editor.apply(parse(line), p).has_value(); };
  EXPECT_TRUE(apply("k 5"));
  EXPECT_EQ(p.chain[0].intValue(kmeans_option::K), 5);
  EXPECT_FALSE(apply("k 5"));  // no change
  EXPECT_TRUE(apply("iterations 3"));
  EXPECT_TRUE(apply("mode blur"));
  EXPECT_TRUE(apply("radius 17"));
  EXPECT_TRUE(apply("passes 2"));
  EXPECT_TRUE(apply("border zero"));
  EXPECT_TRUE(apply("param_inc"));  // the blur's main option: radius + 1
  EXPECT_EQ(test::chainMode(p), "blur");
  const BlurParams blur = blurParamsOf(p.chain[0]);
  EXPECT_EQ(blur.radius, 18);
  EXPECT_EQ(blur.passes, 2);
  EXPECT_EQ(blur.border, BorderMode::Zero);
  EXPECT_TRUE(apply("mode kmeans"));  // K and the iterations as they were left
  EXPECT_EQ(p.chain[0].intValue(kmeans_option::K), 5);
  EXPECT_EQ(p.chain[0].intValue(kmeans_option::Iterations), 3);
  EXPECT_TRUE(apply("view labels"));
  EXPECT_EQ(kmeansViewOf(p.chain[0]), SegmentView::Labels);
  EXPECT_TRUE(apply("view cycle"));
  EXPECT_EQ(kmeansViewOf(p.chain[0]), SegmentView::Boundaries);
  EXPECT_TRUE(apply("view cycle"));
  EXPECT_EQ(kmeansViewOf(p.chain[0]), SegmentView::Colour);
  for (const char* line : {"mode none", "k 9", "radius 1", "k_dec", "cycle_mode", "mode_blur", "param +1",
                           "vf add blur", "set k 3", "add kmeans.k -1", "cycle border", "preset cycle",
                           "compare split", "split 30", "view labels"})
    EXPECT_TRUE(isParamCommand(parse(line))) << line;
  for (const char* line :
       {"pause", "step", "seek 1", "screenshot", "quit", "toggle_hud", "toggle_fullscreen", "help"}) {
    EXPECT_FALSE(isParamCommand(parse(line))) << line;
    const ProcessParams before = p;
    EXPECT_FALSE(apply(line)) << line;
    EXPECT_EQ(p.chain, before.chain);
  }
  for (const char* line : {"fullscreen", "hud", "help", "toggle_hud"}) EXPECT_TRUE(isWindowCommand(parse(line)));
  EXPECT_FALSE(isWindowCommand(parse("screenshot")));
}

// Waits up to 5 s for `n` commands in total from the channel.
std::vector<Command> takeN(ControlChannel& ch, size_t n) {
  std::vector<Command> got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (got.size() < n && std::chrono::steady_clock::now() < deadline) {
    ch.waitFor(std::chrono::milliseconds(50));
    for (Command& c : ch.take()) got.push_back(std::move(c));
  }
  return got;
}

void writeTo(const std::string& path, const std::string& text, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::write(fd, text.data(), text.size()), ssize_t(text.size()));
  ::close(fd);
}

TEST(ControlChannel, FifoWritersMayComeAndGo) {
  test::TempDir dir;
  const std::string fifo = dir.file("ctl");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ControlChannel ch(fifo);
  writeTo(fifo, "k 4\nmode bl", O_WRONLY);  // the writer closes mid-line
  writeTo(fifo, "ur\n", O_WRONLY);          // a new writer finishes it: no EOF in between
  writeTo(fifo, "bogus\n\n# comment\nquit\n", O_WRONLY);
  std::vector<Command> got = takeN(ch, 3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].option, "k");
  EXPECT_EQ(got[1].text, "mode blur");
  EXPECT_EQ(got[2].verb, Verb::Quit);
  EXPECT_EQ(ch.accepted(), 3);
  EXPECT_EQ(ch.rejected(), 1);
}

TEST(ControlChannel, RegularFileIsTailed) {
  test::TempDir dir;
  const std::string file = dir.file("ctl.txt");
  writeTo(file, "radius 9\n", O_WRONLY | O_CREAT | O_TRUNC);
  const std::set<pid_t> before = test::threadIds();
  ControlChannel ch(file);
  pid_t reader = 0;  // the thread the channel started
  for (pid_t id : test::threadIds())
    if (!before.count(id)) reader = id;
  ASSERT_NE(reader, 0);
  ASSERT_EQ(takeN(ch, 1).size(), 1u);
  // A regular file never blocks a read, and nobody holds the channel's lock now: the
  // reader sleeps only in its wait for the file to grow, i.e. it has read to the end.
  ASSERT_TRUE(test::waitUntilBlocked(reader, 10)) << "the reader never reached the end of the file";
  writeTo(file, "pause\nresume\n", O_WRONLY | O_APPEND);
  std::vector<Command> got = takeN(ch, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], parse("pause"));
  EXPECT_EQ(got[1], parse("resume"));
}

TEST(ControlChannel, OverlongLineAndOverflowAreDropped) {
  test::TempDir dir;
  const std::string file = dir.file("ctl.txt");
  std::string text = std::string(ControlChannel::kMaxLine + 10, 'k') + "\nk 3\n";
  for (size_t i = 0; i < ControlChannel::kMaxQueued + 20; ++i) text += "step\n";
  writeTo(file, text, O_WRONLY | O_CREAT | O_TRUNC);
  ControlChannel ch(file);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ch.accepted() + ch.rejected() < int64_t(ControlChannel::kMaxQueued) + 22 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<Command> got = ch.take();
  ASSERT_EQ(got.size(), ControlChannel::kMaxQueued);
  EXPECT_EQ(got[0].option, "k");
  EXPECT_EQ(ch.rejected(), 1 + 21);  // the long line, then the steps that did not fit
}

TEST(ControlChannel, MissingFileIsAClearError) {
  try {
    ControlChannel ch("/nonexistent/vidproc.ctl");
    FAIL() << "opened a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/vidproc.ctl"), std::string::npos) << e.what();
  }
  EXPECT_EQ(openControlChannel(""), nullptr);
}

TEST(ControlChannel, DestructorEndsABlockedReader) {
  test::TempDir dir;
  const std::string fifo = dir.file("ctl");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  { ControlChannel ch(fifo); }  // the reader waits in poll() with no writer at all
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

}  // namespace
}  // namespace vp
