def run(file_path):
    with open(file_path, encoding="utf-8") as f:
        return {"text": f.read()}
