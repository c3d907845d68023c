#pragma once
// One call of the vertex backend: a generateContent exchange with Gemini on Vertex AI and
// the function-call loop in it. The model may answer with function calls instead of text;
// the tools run here and their results go back, until it answers in text, the call's time
// runs out, or it has asked for tools max_tool_rounds times.

#include <chrono>
#include <string>

#include "llm/llm.h"
#include "llm/vertex_auth.h"

namespace mace::llm::vertex {

struct Endpoint {
  std::string url;            // …:generateContent
  std::string quota_project;  // sent as x-goog-user-project when set
  int max_output_tokens = 0;  // 0: the model's own limit
  int max_tool_rounds = 20;
};

// The reply with the usage of every round; its cost is the caller's to price. Never
// throws: a failure is the reply's error class and message.
Reply converse(const Request& request, const Endpoint& endpoint, AccessTokenSource& tokens);

}  // namespace mace::llm::vertex
