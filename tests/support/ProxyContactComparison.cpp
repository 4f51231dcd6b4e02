#include "support/ProxyContactComparison.h"

#include <gtest/gtest.h>

namespace bdt::test
{

ProxyContactMap ByNodes(const std::vector<ProxyContact>& inContacts)
{
    ProxyContactMap map;
    for (const ProxyContact& contact : inContacts)
        EXPECT_TRUE(map.emplace(std::make_pair(contact.nodeA, contact.nodeB), contact).second) << "duplicate";
    return map;
}

void ExpectSameContacts(const ProxyContactMap& inExpected, const ProxyContactMap& inActual, int inStep,
                        const char* inWhat)
{
    ASSERT_EQ(inExpected.size(), inActual.size()) << "step " << inStep;
    for (const auto& [nodes, contact] : inExpected)
    {
        const auto found = inActual.find(nodes);
        ASSERT_NE(found, inActual.end()) << "step " << inStep << ": proxies " << nodes.first << ", "
                                         << nodes.second << " missed by " << inWhat;
        EXPECT_EQ(found->second.depth, contact.depth);
        EXPECT_EQ(found->second.point, contact.point);
        EXPECT_EQ(found->second.normal, contact.normal);
    }
}

} // namespace bdt::test
