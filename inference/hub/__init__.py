"""The Hugging Face Hub as the project's home: publishing a release, sharing run folders, reading `hf://` paths."""
