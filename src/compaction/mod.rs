//! AutoBot context-overflow compaction: boundary policies, state extraction, clipping, composition, the token tracker, summarisers.
