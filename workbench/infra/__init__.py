"""The infrastructure every layer uses, and nothing about corpora, runs or metrics: errors that
name where bad input sits (errors), every path and path variable (paths), the plug-in kit
(plugins), torch devices and number formats (devices), the one loopback guard (local_guard),
the one JSONL reader and writer (jsonl), the progress bar (progress), text made safe for a
terminal (terminal), a server run as a child process (child_process), and a model folder built
once under a file lock (build_once)."""
