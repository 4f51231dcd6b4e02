#include "CreateFunctions.h"
#include "bullet/narrowphase/DeformableCollisionAlgorithm.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btCollisionConfiguration.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCompoundCollisionAlgorithm.h>
#include <algorithm>
#include <bdt/bullet/CollisionRegistration.h>
#include <bdt/core/base/Error.h>

namespace bdt
{

namespace
{

// The create functions registered on dispatchers must outlive them, and a dispatcher does not say when it
// dies, so they live for the whole process: one `DeformableCreateFunc` (32 bytes, plus a map node of about
// 64) per distinct create function met in the row and column, per table. Bullet 3.24's default
// configuration has 5 distinct functions there in each table: 10 forwarders, about 1 KB, for each
// configuration registered on whose functions sit at addresses not seen before. A program that registers
// on a few configurations holds a few KB; one that makes and drops configurations by the thousand should
// use bdt::CollisionConfiguration, which owns its forwarders. Deliberately leaked, so that dispatchers
// destroyed during static destruction still find them.
CreateFuncRegistry& ProcessRegistry()
{
    static CreateFuncRegistry* sRegistry = new CreateFuncRegistry();
    return *sRegistry;
}

// Reads the dispatcher's two tables, which Bullet keeps protected.
struct DispatchTables : btCollisionDispatcher
{
    static const btCollisionAlgorithmCreateFunc* Contact(const btCollisionDispatcher& inDispatcher, int inI,
                                                         int inJ)
    {
        return (inDispatcher.*(&DispatchTables::m_doubleDispatchContactPoints))[inI][inJ];
    }
    static const btCollisionAlgorithmCreateFunc* Closest(const btCollisionDispatcher& inDispatcher, int inI,
                                                         int inJ)
    {
        return (inDispatcher.*(&DispatchTables::m_doubleDispatchClosestPoints))[inI][inJ];
    }
};

bool IsOurs(const btCollisionAlgorithmCreateFunc* inFunc)
{
    return dynamic_cast<const DeformableCreateFunc*>(inFunc) != nullptr;
}

} // namespace

bool HasCollisionAlgorithms(const btCollisionDispatcher& inDispatcher)
{
    const int custom = CUSTOM_CONCAVE_SHAPE_TYPE;
    for (int other = 0; other < MAX_BROADPHASE_COLLISION_TYPES; ++other)
        if (!IsOurs(DispatchTables::Contact(inDispatcher, custom, other)) ||
            !IsOurs(DispatchTables::Contact(inDispatcher, other, custom)) ||
            !IsOurs(DispatchTables::Closest(inDispatcher, custom, other)) ||
            !IsOurs(DispatchTables::Closest(inDispatcher, other, custom)))
            return false;
    return true;
}

std::size_t CollisionAlgorithmSize()
{
    return std::max(sizeof(DeformableCollisionAlgorithm), sizeof(btCompoundCollisionAlgorithm));
}

void registerCollisionAlgorithms(btCollisionDispatcher& ioDispatcher)
{
    btCollisionConfiguration* configuration = ioDispatcher.getCollisionConfiguration();
    if (configuration == nullptr)
        throw Error("the dispatcher has no collision configuration");
    RequireAlgorithmPool(*configuration);
    // A dispatcher that already has our functions in every cell (a bdt::CollisionConfiguration gave them, or an
    // earlier call) keeps them: forwarding to them again would only add a hop.
    if (HasCollisionAlgorithms(ioDispatcher))
        return;

    CreateFuncRegistry& registry = ProcessRegistry();
    // The forwarder to a cell's function; one of ours (a bdt::CollisionConfiguration's) is used as it is.
    const auto forwarder = [&registry](btCollisionAlgorithmCreateFunc* inFallback, bool inClosestPoints)
    { return IsOurs(inFallback) ? inFallback : registry.Get(inFallback, inClosestPoints); };
    const int custom = CUSTOM_CONCAVE_SHAPE_TYPE;
    for (int other = 0; other < MAX_BROADPHASE_COLLISION_TYPES; ++other)
    {
        ioDispatcher.registerCollisionCreateFunc(
            custom, other, forwarder(configuration->getCollisionAlgorithmCreateFunc(custom, other), false));
        ioDispatcher.registerCollisionCreateFunc(
            other, custom, forwarder(configuration->getCollisionAlgorithmCreateFunc(other, custom), false));
        ioDispatcher.registerClosestPointsCreateFunc(
            custom, other, forwarder(configuration->getClosestPointsAlgorithmCreateFunc(custom, other), true));
        ioDispatcher.registerClosestPointsCreateFunc(
            other, custom, forwarder(configuration->getClosestPointsAlgorithmCreateFunc(other, custom), true));
    }
}

} // namespace bdt
