// Moved to <bdt/core/asset/DeformableAsset.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/asset/DeformableAsset.h>
