#include "RefitTopology.h"

#include <bdt/core/base/Error.h>
#include <string>

namespace bdt::bench
{

std::shared_ptr<const BDTree> CheckedRefitTopology(std::shared_ptr<const BDTree> inTree, const char* inWho)
{
    if (!inTree)
        throw Error(std::string(inWho) + " needs a tree");
    if (inTree->LevelCount() + 1 > cRefitQueryStack)
        throw Error(std::string(inWho) + ": the tree has " + std::to_string(inTree->LevelCount()) +
                    " levels, at most " + std::to_string(cRefitQueryStack - 1) + " are supported");
    return inTree;
}

} // namespace bdt::bench
