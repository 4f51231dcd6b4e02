// PieceMemory: last step's bits are exactly the nodes marked in the step before, whatever the steps with no marks
// in between (which it skips), against a set of the marked nodes as the oracle.
#include "bullet/PieceMemory.h"

#include <gtest/gtest.h>
#include <random>
#include <set>

namespace bdt
{
namespace
{

TEST(PieceMemory, LastStepsBitsAreTheNodesMarkedTheStepBefore)
{
    constexpr std::uint32_t cNodes = 1000;
    PieceMemory memory(cNodes);
    std::mt19937 random(7);
    std::set<std::uint32_t> marked; // this step's marks
    for (int step = 0; step < 200; ++step)
    {
        // Every fourth step marks nothing, and every seventh from the 100th on is followed by a step with no
        // marks: the memory skips the work of a step after one with none, and must still clear what was set.
        const int count = step % 4 == 3 ? 0 : int(random() % 40);
        for (int k = 0; k < count; ++k)
        {
            const std::uint32_t node = random() % cNodes;
            memory.MarkUsed(node);
            marked.insert(node);
        }
        memory.NextStep();
        for (std::uint32_t node = 0; node < cNodes; ++node)
            ASSERT_EQ(memory.WasUsed(node), marked.count(node) == 1) << "node " << node << ", step " << step;
        marked.clear();
        if (step >= 100 && step % 7 == 0)
        {
            memory.NextStep();
            for (std::uint32_t node = 0; node < cNodes; ++node)
                ASSERT_FALSE(memory.WasUsed(node)) << "node " << node << ", step " << step;
        }
    }
}

TEST(PieceMemory, ClearForgetsBothSteps)
{
    PieceMemory memory(70);
    memory.MarkUsed(3);
    memory.NextStep();
    memory.MarkUsed(69);
    memory.Clear();
    EXPECT_FALSE(memory.WasUsed(3));
    memory.NextStep();
    EXPECT_FALSE(memory.WasUsed(69));
    EXPECT_EQ(memory.NodeCount(), 70u);
}

} // namespace
} // namespace bdt
