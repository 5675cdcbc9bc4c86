# expect: ModuleNotFoundError
import pandass as pd
