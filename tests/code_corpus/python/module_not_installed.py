# expect: ModuleNotFoundError
import seaborn as sns
sns.set_theme()
