// Moved to <bdt/core/model/MassProperties.h> (README "Changes"); this forwarding header goes in the next version.
#pragma once
#include <bdt/core/model/MassProperties.h>
