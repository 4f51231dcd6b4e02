#pragma once

// Comparing two proxy queries' contacts as sets, bit for bit: for queries that find the same contacts by
// other paths (from a front, from a pair cache) in another order.

#include <bdt/core/geometry/Contact.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace bdt::test
{

/// Proxy contacts keyed by their (A's proxy, B's proxy).
using ProxyContactMap = std::map<std::pair<std::uint32_t, std::uint32_t>, ProxyContact>;

/// `inContacts` keyed by their proxies; a pair of proxies reported twice is a test failure.
ProxyContactMap ByNodes(const std::vector<ProxyContact>& inContacts);

/// Adds a test failure unless `inActual` holds the contacts of `inExpected` exactly: the same proxy pairs,
/// and for each the same depth, point and normal, bit for bit. `inWhat` names the query tested and `inStep`
/// the step, in the messages.
void ExpectSameContacts(const ProxyContactMap& inExpected, const ProxyContactMap& inActual, int inStep,
                        const char* inWhat);

} // namespace bdt::test
