-- seed 003 line 45 (repaired: the SELECT line was lost; the text calls it "SELECT COUNT test")
SELECT COUNT(*)
FROM   [dbo].[BigData] WITH (NOLOCK)
