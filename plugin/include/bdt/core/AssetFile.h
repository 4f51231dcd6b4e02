// Moved to <bdt/core/asset/AssetFile.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/asset/AssetFile.h>
