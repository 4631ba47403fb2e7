#include "pipeline/step_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace sluice::pipeline {
namespace {

using namespace std::chrono_literals;

// A driver whose input is due when the test says, and that records what
// the loop asks of it.
class FakeDriver : public StepLoop::Driver {
 public:
  std::atomic<bool> due{false};
  std::atomic<int> fail_at{0};
  std::mutex mu;
  std::vector<std::string> calls;

  StepLoop::Clock::time_point InputDue(uint64_t) override {
    return due ? StepLoop::Clock::time_point::min() : StepLoop::Clock::time_point::max();
  }
  Status RunStep(const StepLoop::StepPlan& plan) override {
    due = false;
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("step " + std::to_string(plan.step) + (plan.commit ? " commit" : "") +
                    (plan.in_transaction ? " txn" : ""));
    if (static_cast<int>(plan.step) == fail_at) return Status::IOError("disk on fire");
    return Status::OK();
  }
  Status TakeCheckpoint(uint64_t seq) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("checkpoint " + std::to_string(seq));
    return seq == 2 ? Status::IOError("full") : Status::OK();
  }
  void Failed(const Status&) override {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back("failed");
  }
  std::vector<std::string> Calls() {
    std::lock_guard<std::mutex> l(mu);
    return calls;
  }
};

class StepLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    thread_ = std::thread([this] { loop_.Run(&driver_); });
  }
  void TearDown() override {
    loop_.SetStopping();
    thread_.join();
  }
  void Step() {
    const uint64_t before = loop_.step();
    driver_.due = true;
    loop_.Wake();
    loop_.WaitForBoundary(before + 1, 5s);
  }
  FakeDriver driver_;
  StepLoop loop_{"test"};
  std::thread thread_;
};

TEST_F(StepLoopTest, StepsWhenInputIsDueAndNotWhilePaused) {
  Step();
  Step();
  EXPECT_EQ(loop_.step(), 2u);
  loop_.Pause();
  driver_.due = true;
  loop_.Wake();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(loop_.step(), 2u);
  loop_.Resume();
  loop_.WaitForBoundary(3, 5s);
  EXPECT_EQ(driver_.Calls(), (std::vector<std::string>{"step 1", "step 2", "step 3"}));
}

// With set_step_at_start, step 1 runs with no input, once; later steps wait
// for input as before.
TEST(StepLoopStartTest, StepAtStartRunsStepOneAlone) {
  FakeDriver driver;
  StepLoop loop{"test"};
  loop.set_step_at_start(true);
  std::thread t([&] { loop.Run(&driver); });
  loop.WaitForBoundary(1, 5s);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(loop.step(), 1u);
  driver.due = true;
  loop.Wake();
  loop.WaitForBoundary(2, 5s);
  EXPECT_EQ(driver.Calls(), (std::vector<std::string>{"step 1", "step 2"}));
  loop.SetStopping();
  t.join();
}

// A commit runs a step even with no input, and the transaction's steps say
// so.
TEST_F(StepLoopTest, TransactionsCommitInAStep) {
  ASSERT_TRUE(loop_.StartTransaction().ok());
  EXPECT_FALSE(loop_.StartTransaction().ok());
  Step();
  auto committed = loop_.CommitTransaction();
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_EQ(*committed, 2u);
  EXPECT_FALSE(loop_.in_transaction());
  EXPECT_EQ(driver_.Calls(), (std::vector<std::string>{"step 1 txn", "step 2 commit txn"}));
  EXPECT_EQ(loop_.CommitTransaction().status().code(), StatusCode::kInvalidArgument);
}

// A checkpoint is taken at the next boundary, before more input; a failed
// one is reported and the pipeline goes on.
TEST_F(StepLoopTest, CheckpointsAtABoundary) {
  Step();
  auto first = loop_.RequestCheckpoint();
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(loop_.WaitCheckpoint(*first, 5s).ok());
  auto second = loop_.RequestCheckpoint();
  EXPECT_EQ(loop_.WaitCheckpoint(*second, 5s).code(), StatusCode::kIOError);
  Step();
  EXPECT_EQ(loop_.last_checkpoint(), 1u);
  EXPECT_NE(loop_.CheckpointStatusText().find("\"success\":1"), std::string::npos)
      << loop_.CheckpointStatusText();
  EXPECT_EQ(driver_.Calls(),
            (std::vector<std::string>{"step 1", "checkpoint 1", "checkpoint 2", "step 2"}));
}

// A failed step fails the pipeline, ends the loop and wakes a waiting
// commit with the failure.
TEST_F(StepLoopTest, AFailedStepFailsThePipeline) {
  driver_.fail_at = 1;
  ASSERT_TRUE(loop_.StartTransaction().ok());
  auto committed = loop_.CommitTransaction();
  EXPECT_EQ(committed.status().code(), StatusCode::kIOError);
  EXPECT_NE(committed.status().message().find("pipeline failed at "), std::string::npos);
  EXPECT_NE(committed.status().message().find("disk on fire"), std::string::npos);
  EXPECT_EQ(loop_.state(), PipelineState::kFailed);
  // The driver hears of it (right after waiters are woken).
  for (int i = 0; i < 500 && driver_.Calls().back() != "failed"; ++i) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(driver_.Calls().back(), "failed");
  EXPECT_FALSE(loop_.BeginStep({2, false, false}).ok());
}

TEST(StepLoopOutsideTest, StepsOutsideTheLoopGoInOrder) {
  StepLoop loop("test");
  EXPECT_FALSE(loop.BeginStep({2, false, false}).ok());
  ASSERT_TRUE(loop.BeginStep({1, false, true}).ok());
  EXPECT_TRUE(loop.stepping());
  EXPECT_TRUE(loop.in_transaction());
  loop.EndStep({1, false, true}, Status::OK(), 1ms);
  ASSERT_TRUE(loop.BeginStep({2, true, true}).ok());
  loop.EndStep({2, true, true}, Status::OK(), 1ms);
  EXPECT_EQ(loop.step(), 2u);
  EXPECT_FALSE(loop.in_transaction());
}

}  // namespace
}  // namespace sluice::pipeline
